// Application and mail settings (GET/PATCH /api/settings), the trusted proxy and PocketBase's rate-limit
// rules, a test e-mail, and the outbox: the messages kept while SMTP is off (or that failed to send),
// newest first, their links clickable, so a local developer can verify an account or reset a password
// without a mail server.
import { createResource, createSignal, For, Show, type JSX } from 'solid-js';
import { ApiError, messageOf, type AppSettings, type KeptMail, type RateLimitRule } from '../api.js';
import { useApp } from '../app-context.js';
import { useToast } from '../components/toasts.js';
import { FormField } from '../components/form-field.js';
import { formatDate } from '../lib/format.js';

/** The http(s) links of a message (its html is never rendered: only these are shown). */
export function linksOf(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/href="([^"]+)"/g)) {
    const href = m[1].replace(/&amp;/g, '&');
    if (/^https?:\/\//i.test(href)) out.push(href);
  }
  return out;
}

/** `data.meta.appURL.message` → errors keyed `meta.appURL` (`rateLimits.rules.0.label`: any depth). */
export function fieldErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(err instanceof ApiError)) return out;
  const walk = (v: unknown, path: string) => {
    if (!v || typeof v !== 'object') return;
    if ('message' in v && 'code' in v) out[path] = String((v as { message: unknown }).message);
    else for (const [k, e] of Object.entries(v)) walk(e, path === '' ? k : `${path}.${k}`);
  };
  walk(err.data ?? {}, '');
  return out;
}

/** PocketBase's default rules (core/settings_model.go), offered when the list is empty. */
const DEFAULT_RULES: RateLimitRule[] = [
  { label: '*:auth', audience: '', maxRequests: 2, duration: 3 },
  { label: '*:create', audience: '', maxRequests: 20, duration: 5 },
  { label: '/api/batch', audience: '', maxRequests: 3, duration: 1 },
  { label: '/api/', audience: '', maxRequests: 300, duration: 10 },
];

export function SettingsPage(): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [settings, { mutate }] = createResource(() => app.api.getSettings());
  const [mails, { refetch: refetchMails }] = createResource(async () => (await app.api.listMails()).items);
  const [password, setPassword] = createSignal('');
  const [errors, setErrors] = createSignal<Record<string, string>>({});
  const [error, setError] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const [testTo, setTestTo] = createSignal('');
  const [template, setTemplate] = createSignal('verification');
  const [collection, setCollection] = createSignal('users');
  const authCollections = () => (app.collections() ?? []).filter((c) => c.type === 'auth');

  const edit = <G extends 'meta' | 'smtp'>(group: G, key: keyof AppSettings[G], value: unknown) => {
    const s = settings();
    if (s) mutate({ ...s, [group]: { ...s[group], [key]: value } });
  };

  const setRules = (rules: RateLimitRule[]) => {
    const s = settings();
    if (s) mutate({ ...s, rateLimits: { ...s.rateLimits, rules } });
  };
  const editRule = (i: number, key: keyof RateLimitRule, value: unknown) => setRules((settings()?.rateLimits.rules ?? []).map((r, j) => (j === i ? { ...r, [key]: value } : r)));
  const [proxyHeaders, setProxyHeaders] = createSignal<string | null>(null);
  const headersText = () => proxyHeaders() ?? (settings()?.trustedProxy.headers ?? []).join(', ');

  const save = async (e: Event) => {
    e.preventDefault();
    const s = settings();
    if (!s) return;
    setBusy(true);
    setError('');
    setErrors({});
    try {
      const { hideControls: _h, ...meta } = s.meta;
      const headers = headersText().split(',').map((h) => h.trim()).filter((h) => h !== '');
      mutate(await app.api.updateSettings({
        meta,
        smtp: { ...s.smtp, ...(password() !== '' ? { password: password() } : {}) },
        trustedProxy: { ...s.trustedProxy, headers },
        rateLimits: s.rateLimits,
      }));
      setPassword('');
      setProxyHeaders(null);
      toast('Settings saved.');
    } catch (err) {
      setErrors(fieldErrors(err));
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const sendTest = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await app.api.testEmail({ email: testTo(), template: template(), collection: collection() });
      toast(settings()?.smtp.enabled ? 'Test e-mail sent.' : 'Test e-mail kept in the outbox.');
      await refetchMails();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const text = (group: 'meta' | 'smtp', key: string, label: string, type = 'text') => (
    <FormField label={label} for={`settings-${group}-${key}`} error={errors()[`${group}.${key}`]}>
      <input id={`settings-${group}-${key}`} class="input" type={type}
        value={String((settings()?.[group] as Record<string, unknown> | undefined)?.[key] ?? '')}
        onInput={(e) => edit(group, key as never, type === 'number' ? Number(e.currentTarget.value) : e.currentTarget.value)} />
    </FormField>
  );

  return (
    <div class="page settings-page">
      <header class="page-header">
        <div class="page-title"><h1>Settings</h1></div>
      </header>
      <Show when={error() || settings.error}>
        <p class="alert alert-error" role="alert">{error() || messageOf(settings.error)}</p>
      </Show>
      <Show when={settings()}>
        <form onSubmit={save}>
          <section class="card section" aria-labelledby="settings-app">
            <h2 id="settings-app">Application</h2>
            {text('meta', 'appName', 'Application name')}
            {text('meta', 'appURL', 'Application URL (links in e-mails start with it)')}
          </section>
          <section class="card section" aria-labelledby="settings-mail">
            <h2 id="settings-mail">Mail</h2>
            {text('meta', 'senderName', 'Sender name')}
            {text('meta', 'senderAddress', 'Sender address', 'email')}
            <label class="checkbox">
              <input id="settings-smtp-enabled" type="checkbox" checked={settings()?.smtp.enabled} onChange={(e) => edit('smtp', 'enabled', e.currentTarget.checked)} />
              Send through an SMTP server (off: messages are kept in the outbox below)
            </label>
            <Show when={settings()?.smtp.enabled}>
              {text('smtp', 'host', 'SMTP host')}
              {text('smtp', 'port', 'Port', 'number')}
              {text('smtp', 'username', 'Username')}
              <FormField label="Password" for="settings-smtp-password" error={errors()['smtp.password']} hint="Left empty, the stored password is kept.">
                <input id="settings-smtp-password" class="input" type="password" autocomplete="new-password" value={password()} onInput={(e) => setPassword(e.currentTarget.value)} />
              </FormField>
              <FormField label="Authentication" for="settings-smtp-authMethod" error={errors()['smtp.authMethod']}>
                <select id="settings-smtp-authMethod" class="input" value={settings()?.smtp.authMethod ?? ''} onChange={(e) => edit('smtp', 'authMethod', e.currentTarget.value)}>
                  <option value="">PLAIN (default)</option>
                  <option value="PLAIN">PLAIN</option>
                  <option value="LOGIN">LOGIN</option>
                </select>
              </FormField>
              <label class="checkbox">
                <input id="settings-smtp-tls" type="checkbox" checked={settings()?.smtp.tls} onChange={(e) => edit('smtp', 'tls', e.currentTarget.checked)} />
                Implicit TLS (port 465); otherwise STARTTLS when the server offers it
              </label>
              {text('smtp', 'localName', 'Local name for EHLO (optional)')}
            </Show>
          </section>
          <section class="card section" aria-labelledby="settings-proxy">
            <h2 id="settings-proxy">Trusted proxy</h2>
            <p class="muted section-intro">
              Behind a reverse proxy every request comes from the proxy's address. Name the header your proxy sets with the
              client's address (X-Forwarded-For, X-Real-IP, CF-Connecting-IP, Fly-Client-IP...) and Deskbase counts each
              client by it. Only do so when the server can be reached through the proxy alone: anyone can write such a header.
            </p>
            <FormField label="Headers (comma-separated; empty: no proxy header is believed)" for="settings-proxy-headers" error={errors()['trustedProxy.headers'] ?? Object.entries(errors()).find(([k]) => k.startsWith('trustedProxy.headers.'))?.[1]}>
              <input id="settings-proxy-headers" class="input" value={headersText()} onInput={(e) => setProxyHeaders(e.currentTarget.value)} />
            </FormField>
            <label class="checkbox">
              <input id="settings-proxy-leftmost" type="checkbox" checked={settings()?.trustedProxy.useLeftmostIP}
                onChange={(e) => { const s = settings(); if (s) mutate({ ...s, trustedProxy: { ...s.trustedProxy, useLeftmostIP: e.currentTarget.checked } }); }} />
              Use the leftmost address in the header (some proxies let the client write it: the rightmost is the proxy's own)
            </label>
          </section>
          <section class="card section" aria-labelledby="settings-rate">
            <h2 id="settings-rate">Rate limits</h2>
            <p class="muted section-intro">
              PocketBase's rules: each client may make at most <em>max requests</em> per <em>duration</em> seconds to what the
              label names (an exact path, a path prefix ending in /, <code>METHOD /path</code>, or a tag such as
              <code>*:auth</code>, <code>users:create</code>, <code>*:list</code>); past it, a 429. Superusers are never limited.
              Each server counts its own requests.
            </p>
            <label class="checkbox">
              <input id="settings-rate-enabled" type="checkbox" checked={settings()?.rateLimits.enabled}
                onChange={(e) => { const s = settings(); if (s) mutate({ ...s, rateLimits: { ...s.rateLimits, enabled: e.currentTarget.checked } }); }} />
              Enable rate limiting
            </label>
            <Show when={errors()['rateLimits.rules']}><p class="error-text" role="alert">{errors()['rateLimits.rules']}</p></Show>
            <div class="table-wrap">
              <table class="table rate-limits-table">
                <thead>
                  <tr><th scope="col">Label</th><th scope="col">Audience</th><th scope="col">Max requests</th><th scope="col">Duration (s)</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr>
                </thead>
                <tbody>
                  <For each={settings()?.rateLimits.rules ?? []}>
                    {(rule, i) => {
                      const err = (k: string) => errors()[`rateLimits.rules.${i()}.${k}`];
                      return (
                        <tr>
                          <td>
                            <input class="input" aria-label={`Rule ${i() + 1} label`} value={rule.label} onInput={(e) => editRule(i(), 'label', e.currentTarget.value)} />
                            <Show when={err('label')}><div class="error-text">{err('label')}</div></Show>
                          </td>
                          <td>
                            <select class="input" aria-label={`Rule ${i() + 1} audience`} value={rule.audience} onChange={(e) => editRule(i(), 'audience', e.currentTarget.value)}>
                              <option value="">Everyone</option>
                              <option value="@guest">Guests only</option>
                              <option value="@auth">Signed in only</option>
                            </select>
                          </td>
                          <td>
                            <input class="input" type="number" min="1" aria-label={`Rule ${i() + 1} max requests`} value={rule.maxRequests} onInput={(e) => editRule(i(), 'maxRequests', Number(e.currentTarget.value))} />
                            <Show when={err('maxRequests')}><div class="error-text">{err('maxRequests')}</div></Show>
                          </td>
                          <td>
                            <input class="input" type="number" min="1" aria-label={`Rule ${i() + 1} duration`} value={rule.duration} onInput={(e) => editRule(i(), 'duration', Number(e.currentTarget.value))} />
                            <Show when={err('duration')}><div class="error-text">{err('duration')}</div></Show>
                          </td>
                          <td><button type="button" class="btn btn-ghost" aria-label={`Remove rule ${i() + 1}`} onClick={() => setRules((settings()?.rateLimits.rules ?? []).filter((_, j) => j !== i()))}>Remove</button></td>
                        </tr>
                      );
                    }}
                  </For>
                </tbody>
              </table>
            </div>
            <div class="settings-actions">
              <button type="button" class="btn" onClick={() => setRules([...(settings()?.rateLimits.rules ?? []), { label: '', audience: '', maxRequests: 10, duration: 1 }])}>Add rule</button>
              <Show when={(settings()?.rateLimits.rules ?? []).length === 0}>
                <button type="button" class="btn btn-ghost" onClick={() => setRules(DEFAULT_RULES.map((r) => ({ ...r })))}>Use PocketBase's defaults</button>
              </Show>
            </div>
          </section>
          <div class="settings-actions"><button type="submit" class="btn btn-primary" disabled={busy()}>Save settings</button></div>
        </form>
        <form class="card section" aria-labelledby="settings-test" onSubmit={sendTest}>
          <h2 id="settings-test">Send a test e-mail</h2>
          <FormField label="To" for="settings-test-to">
            <input id="settings-test-to" class="input" type="email" required value={testTo()} onInput={(e) => setTestTo(e.currentTarget.value)} />
          </FormField>
          <FormField label="Template" for="settings-test-template">
            <select id="settings-test-template" class="input" value={template()} onChange={(e) => setTemplate(e.currentTarget.value)}>
              <option value="verification">Verification</option>
              <option value="password-reset">Password reset</option>
              <option value="email-change">E-mail change</option>
            </select>
          </FormField>
          <FormField label="Collection" for="settings-test-collection">
            <select id="settings-test-collection" class="input" value={collection()} onChange={(e) => setCollection(e.currentTarget.value)}>
              <For each={authCollections()}>{(c) => <option value={c.name}>{c.name}</option>}</For>
            </select>
          </FormField>
          <button type="submit" class="btn" disabled={busy()}>Send test e-mail</button>
        </form>
      </Show>
      <section class="card section" aria-labelledby="settings-outbox">
        <h2 id="settings-outbox">Outbox</h2>
        <p class="muted section-intro">Messages kept while SMTP is off, and those the mail server did not take. The newest 200, newest first.</p>
        <Show when={(mails() ?? []).length > 0} fallback={<p class="muted">No messages.</p>}>
          <div class="table-wrap">
            <table class="table outbox-table">
              <thead>
                <tr><th scope="col">When</th><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Links</th></tr>
              </thead>
              <tbody>
                <For each={mails()}>
                  {(m: KeptMail) => (
                    <tr data-id={m.id}>
                      <td>{formatDate(m.created)}<Show when={m.status === 'failed'}><br /><span class="badge badge-warning" title={m.error}>failed</span></Show></td>
                      <td>{m.to}</td>
                      <td>{m.subject}</td>
                      <td><For each={linksOf(m.html)}>{(href) => <div><a href={href} target="_blank" rel="noopener noreferrer">{href}</a></div>}</For></td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
          </div>
        </Show>
        <button type="button" class="btn btn-ghost" onClick={() => void refetchMails()}>Refresh</button>
      </section>
    </div>
  );
}
