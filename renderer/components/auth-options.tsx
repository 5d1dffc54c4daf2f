// An auth collection's options in the collection editor, as PocketBase's dashboard has them: the other
// sign-in methods (OTP, MFA, OAuth2 providers, new sign-in alerts), token durations and the e-mail
// templates with their placeholders. Every option is shown and sent as the user sets it; the server
// says what it refuses, and its words appear by the input (`error(path)` reads the save's field errors).
import { createEffect, createSignal, For, Show, untrack, type JSX } from 'solid-js';
import type { SetStoreFunction } from 'solid-js/store';
import type { Draft } from '../lib/collection-draft.js';
import { durationWords, newProvider, PROVIDER_NAMES, TEMPLATES, TOKEN_OPTIONS, templateAt, type AuthOptionsDraft, type ProviderDraft, type TemplatePath } from '../lib/auth-options-draft.js';
import { FormField } from './form-field.js';

interface Props {
  options: AuthOptionsDraft;
  setDraft: SetStoreFunction<Draft>;
  /** The save's error at a dotted path (`otp.duration`), if any. */
  error(path: string): string | undefined;
  disabled?: boolean;
}

const seconds = (v: string) => (v.trim() === '' ? 0 : Number(v));

function Method(props: { id: string; title: string; intro: string; on: boolean; error?: string; disabled?: boolean; onToggle(on: boolean): void; children?: JSX.Element }): JSX.Element {
  return (
    <div class="auth-method" classList={{ 'auth-method-on': props.on, 'has-error': !!props.error }}>
      <div class="auth-method-head">
        <label class="switch">
          <input id={props.id} type="checkbox" role="switch" aria-describedby={`${props.id}-intro`} checked={props.on} disabled={props.disabled} onChange={(e) => props.onToggle(e.currentTarget.checked)} />
          <span class="switch-track" aria-hidden="true" />
          <span class="auth-method-title">{props.title}</span>
        </label>
        <span id={`${props.id}-intro`} class="muted small">{props.intro}</span>
      </div>
      <Show when={props.error}>
        <small class="error-text" role="alert">{props.error}</small>
      </Show>
      <Show when={props.children}>
        <div class="opt-grid auth-method-body">{props.children}</div>
      </Show>
    </div>
  );
}

function Duration(props: { id: string; label: string; value: number; error?: string; disabled?: boolean; onChange(n: number): void }): JSX.Element {
  return (
    <FormField label={props.label} for={props.id} error={props.error} hint={durationWords(props.value) || undefined}>
      <div class="input-unit">
        <input id={props.id} class="input" type="number" min="0" step="1" inputmode="numeric" value={props.value} disabled={props.disabled} onInput={(e) => props.onChange(seconds(e.currentTarget.value))} />
        <span class="unit muted">seconds</span>
      </div>
    </FormField>
  );
}

function ProviderRow(props: { p: ProviderDraft; i: number; error(path: string): string | undefined; disabled?: boolean; set(patch: Partial<ProviderDraft>): void; remove(): void }): JSX.Element {
  const id = (k: string) => `auth-oauth2-${props.i}-${k}`;
  const err = (k: string) => props.error(`oauth2.providers.${props.i}.${k}`);
  const text = (k: 'name' | 'clientId' | 'displayName' | 'authURL' | 'tokenURL' | 'userInfoURL', label: string, placeholder = '') => (
    <FormField label={label} for={id(k)} error={err(k)}>
      <input id={id(k)} class="input" value={props.p[k]} placeholder={placeholder} disabled={props.disabled} autocomplete="off" spellcheck={false} onInput={(e) => props.set({ [k]: e.currentTarget.value })} />
    </FormField>
  );
  return (
    <li class="provider" aria-label={`OAuth2 provider ${props.p.name || props.i + 1}`}>
      <div class="provider-grid">
        {text('name', 'Provider', 'google, github, oidc…')}
        {text('clientId', 'Client ID')}
        <FormField label="Client secret" for={id('clientSecret')} error={err('clientSecret')} hint={props.p.stored ? 'Stored and never shown: leave empty to keep it.' : undefined}>
          <input id={id('clientSecret')} class="input" type="password" autocomplete="new-password" value={props.p.clientSecret} placeholder={props.p.stored ? '••••••••' : ''} disabled={props.disabled} onInput={(e) => props.set({ clientSecret: e.currentTarget.value })} />
        </FormField>
        {text('displayName', 'Display name', 'optional')}
        <Show when={props.p.name === 'oidc' || props.p.authURL || props.p.tokenURL || props.p.userInfoURL}>
          {text('authURL', 'Auth URL', 'https://issuer.example.com/authorize')}
          {text('tokenURL', 'Token URL', 'https://issuer.example.com/token')}
          {text('userInfoURL', 'User info URL', 'https://issuer.example.com/userinfo')}
        </Show>
      </div>
      <Show when={props.error(`oauth2.providers.${props.i}`)}>
        <small class="error-text" role="alert">{props.error(`oauth2.providers.${props.i}`)}</small>
      </Show>
      <button type="button" class="btn btn-ghost btn-small btn-danger-ghost provider-remove" disabled={props.disabled} onClick={() => props.remove()}>Remove</button>
    </li>
  );
}

export function AuthOptionsSections(props: Props): JSX.Element {
  const o = () => props.options;
  const [tpl, setTpl] = createSignal<TemplatePath>('verificationTemplate');
  let lastFocused: HTMLInputElement | HTMLTextAreaElement | undefined;

  const setTemplate = (path: TemplatePath, key: 'subject' | 'body', value: string) => {
    if (path === 'otp.emailTemplate') props.setDraft('auth', 'otp', 'emailTemplate', key, value);
    else if (path === 'authAlert.emailTemplate') props.setDraft('auth', 'authAlert', 'emailTemplate', key, value);
    else props.setDraft('auth', path, key, value);
  };
  const setProvider = (i: number, patch: Partial<ProviderDraft>) => props.setDraft('auth', 'oauth2', 'providers', i, patch);
  const addProvider = (name: string) => {
    props.setDraft('auth', 'oauth2', 'providers', (list) => [...list, newProvider(name)]);
    const at = o().oauth2.providers.length - 1;
    queueMicrotask(() => document.getElementById(`auth-oauth2-${at}-clientId`)?.focus());
  };

  /** A placeholder clicked goes in at the caret of the subject or body last edited. */
  const insert = (text: string) => {
    const el = lastFocused ?? (document.getElementById('auth-tpl-body') as HTMLTextAreaElement | null) ?? undefined;
    if (!el) return;
    const start = el.selectionStart ?? el.value.length;
    const end = el.selectionEnd ?? start;
    const value = el.value.slice(0, start) + text + el.value.slice(end);
    setTemplate(tpl(), el.id === 'auth-tpl-subject' ? 'subject' : 'body', value);
    queueMicrotask(() => {
      el.focus();
      el.setSelectionRange(start + text.length, start + text.length);
    });
  };
  const current = () => TEMPLATES.find((t) => t.path === tpl()) ?? TEMPLATES[0];
  const tplHasError = (path: TemplatePath) => !!(props.error(`${path}.subject`) ?? props.error(`${path}.body`) ?? props.error(path));
  // a save refused for a template not on screen opens that template, so its message is by its input
  createEffect(() => {
    const refused = TEMPLATES.find((t) => tplHasError(t.path));
    if (refused && !untrack(() => tplHasError(tpl()))) setTpl(refused.path);
  });
  const unusedProviders = () => PROVIDER_NAMES.filter((n) => !o().oauth2.providers.some((p) => p.name === n));

  return (
    <>
      <section class="card section auth-options" aria-labelledby="auth-methods-title">
        <h2 id="auth-methods-title">Other sign-in methods</h2>
        <p class="muted section-intro">Besides the password (above). The server says which of these it can honour when you save.</p>
        <Method id="auth-otp-enabled" title="One-time password (OTP)" intro="A code sent by e-mail signs the user in." on={o().otp.enabled} error={props.error('otp.enabled')} disabled={props.disabled} onToggle={(v) => props.setDraft('auth', 'otp', 'enabled', v)}>
          <Duration id="auth-otp-duration" label="Code valid for" value={o().otp.duration} error={props.error('otp.duration')} disabled={props.disabled} onChange={(n) => props.setDraft('auth', 'otp', 'duration', n)} />
          <FormField label="Code length" for="auth-otp-length" error={props.error('otp.length')}>
            <input id="auth-otp-length" class="input" type="number" min="4" step="1" inputmode="numeric" value={o().otp.length} disabled={props.disabled} onInput={(e) => props.setDraft('auth', 'otp', 'length', seconds(e.currentTarget.value))} />
          </FormField>
        </Method>
        <Method id="auth-mfa-enabled" title="Multi-factor authentication (MFA)" intro="A second method is asked for after the first." on={o().mfa.enabled} error={props.error('mfa.enabled')} disabled={props.disabled} onToggle={(v) => props.setDraft('auth', 'mfa', 'enabled', v)}>
          <Duration id="auth-mfa-duration" label="Second step within" value={o().mfa.duration} error={props.error('mfa.duration')} disabled={props.disabled} onChange={(n) => props.setDraft('auth', 'mfa', 'duration', n)} />
          <FormField label="Only for records matching (rule)" for="auth-mfa-rule" error={props.error('mfa.rule')} hint="Empty: everyone.">
            <input id="auth-mfa-rule" class="input mono" value={o().mfa.rule} placeholder="e.g. role = 'admin'" disabled={props.disabled} spellcheck={false} onInput={(e) => props.setDraft('auth', 'mfa', 'rule', e.currentTarget.value)} />
          </FormField>
        </Method>
        <Method id="auth-oauth2-enabled" title="OAuth2" intro="Sign in with an account at another provider." on={o().oauth2.enabled} error={props.error('oauth2.enabled') ?? (typeof props.error('oauth2.providers') === 'string' ? props.error('oauth2.providers') : undefined)} disabled={props.disabled} onToggle={(v) => props.setDraft('auth', 'oauth2', 'enabled', v)} />
        <div class="providers">
          <Show when={o().oauth2.providers.length > 0} fallback={<p class="muted small">No providers yet.</p>}>
            <ul class="provider-list">
              <For each={o().oauth2.providers}>
                {(p, i) => <ProviderRow p={p} i={i()} error={props.error} disabled={props.disabled} set={(patch) => setProvider(i(), patch)} remove={() => props.setDraft('auth', 'oauth2', 'providers', (list) => list.filter((x) => x.key !== p.key))} />}
              </For>
            </ul>
          </Show>
          <div class="provider-add" role="group" aria-label="Add an OAuth2 provider">
            <span class="muted small">Add:</span>
            <For each={unusedProviders()}>
              {(name) => <button type="button" class="chip chip-sm" disabled={props.disabled} onClick={() => addProvider(name)}>+ {name}</button>}
            </For>
            <button type="button" class="chip chip-sm" disabled={props.disabled} onClick={() => addProvider('')}>+ other</button>
          </div>
        </div>
        <Method id="auth-authAlert-enabled" title="New sign-in alerts" intro="An e-mail when an account signs in from a new device." on={o().authAlert.enabled} error={props.error('authAlert.enabled')} disabled={props.disabled} onToggle={(v) => props.setDraft('auth', 'authAlert', 'enabled', v)} />
      </section>

      <section class="card section" aria-labelledby="auth-tokens-title">
        <h2 id="auth-tokens-title">Token durations</h2>
        <p class="muted section-intro">How long each kind of token stays valid.</p>
        <div class="opt-grid token-grid">
          <For each={TOKEN_OPTIONS}>
            {(t) => <Duration id={`auth-${t.key}-duration`} label={t.label} value={o()[t.key].duration} error={props.error(`${t.key}.duration`) ?? props.error(`${t.key}.secret`)} disabled={props.disabled} onChange={(n) => props.setDraft('auth', t.key, 'duration', n)} />}
          </For>
        </div>
      </section>

      <section class="card section" aria-labelledby="auth-templates-title">
        <h2 id="auth-templates-title">E-mail templates</h2>
        <p class="muted section-intro">The messages sent to this collection's users. The body is HTML.</p>
        <div class="tabs template-tabs" role="tablist" aria-label="E-mail template">
          <For each={TEMPLATES}>
            {(t) => (
              <button type="button" role="tab" id={`auth-tpl-tab-${t.path.replace('.', '-')}`} class="tab" classList={{ active: tpl() === t.path, 'tab-error': tplHasError(t.path) }} aria-selected={tpl() === t.path} onClick={() => setTpl(t.path)}>
                {t.label}
              </button>
            )}
          </For>
        </div>
        <div class="template-editor" role="tabpanel" aria-label={`${current().label} e-mail`}>
          <div class="template-fields">
            <FormField label="Subject" for="auth-tpl-subject" error={props.error(`${tpl()}.subject`)}>
              <input id="auth-tpl-subject" class="input" value={templateAt(o(), tpl()).subject} disabled={props.disabled} onFocus={(e) => (lastFocused = e.currentTarget)} onInput={(e) => setTemplate(tpl(), 'subject', e.currentTarget.value)} />
            </FormField>
            <FormField label="Body (HTML)" for="auth-tpl-body" error={props.error(`${tpl()}.body`)}>
              <textarea id="auth-tpl-body" class="input mono template-body" rows="12" value={templateAt(o(), tpl()).body} disabled={props.disabled} spellcheck={false} onFocus={(e) => (lastFocused = e.currentTarget)} onInput={(e) => setTemplate(tpl(), 'body', e.currentTarget.value)} />
            </FormField>
          </div>
          <aside class="placeholders" aria-label="Placeholders">
            <h3>Placeholders</h3>
            <p class="muted small">Click one to insert it.</p>
            <ul>
              <For each={current().placeholders}>
                {(ph) => (
                  <li>
                    <button type="button" class="chip chip-sm mono" disabled={props.disabled} onMouseDown={(e) => e.preventDefault()} onClick={() => insert(ph === '{RECORD:*}' ? '{RECORD:email}' : ph)}>{ph}</button>
                  </li>
                )}
              </For>
            </ul>
            <p class="muted small">{'{RECORD:name}'} is any field of the record.</p>
          </aside>
        </div>
      </section>
    </>
  );
}
