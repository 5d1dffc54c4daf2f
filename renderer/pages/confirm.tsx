// The pages a mailed link opens (`#/auth/confirm-verification/<token>`, `…/confirm-password-reset/…`,
// `…/confirm-email-change/…`, PocketBase's paths): no sign-in needed, the token is the authority. The
// collection is the token's `collectionId` claim, as PocketBase's dashboard reads it. Also the page
// /api/oauth2-redirect sends a provider's sign-in window to (`#/auth/oauth2-redirect-success`, `-failure`).
import { createSignal, Match, Show, Switch, type JSX } from 'solid-js';
import type { Api } from '../api.js';
import { messageOf, ApiError } from '../api.js';
import { FormField } from '../components/form-field.js';

const ACTIONS = {
  'confirm-verification': { title: 'Verify your e-mail', done: 'Your e-mail is verified.' },
  'confirm-password-reset': { title: 'Choose a new password', done: 'Your password was changed. Sign in with it in the app.' },
  'confirm-email-change': { title: 'Confirm your new e-mail', done: 'Your e-mail was changed. Sign in with the new one in the app.' },
} as const;

export type ConfirmAction = keyof typeof ACTIONS;

export const isConfirmAction = (v: string | undefined): v is ConfirmAction => v !== undefined && Object.hasOwn(ACTIONS, v);

/** The token's `collectionId` claim ('' when it has none). */
export function collectionOf(token: string): string {
  try {
    const claims = JSON.parse(atob(token.split('.')[1] ?? '')) as { collectionId?: unknown };
    return typeof claims.collectionId === 'string' ? claims.collectionId : '';
  } catch {
    return '';
  }
}

export function ConfirmPage(props: { api: Api; action: ConfirmAction; token: string }): JSX.Element {
  const [password, setPassword] = createSignal('');
  const [passwordConfirm, setPasswordConfirm] = createSignal('');
  const [error, setError] = createSignal('');
  const [fieldErrors, setFieldErrors] = createSignal<Record<string, string>>({});
  const [done, setDone] = createSignal(false);
  const [busy, setBusy] = createSignal(false);
  const info = () => ACTIONS[props.action];

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    setFieldErrors({});
    const body: Record<string, string> = { token: props.token };
    if (props.action === 'confirm-password-reset') Object.assign(body, { password: password(), passwordConfirm: passwordConfirm() });
    if (props.action === 'confirm-email-change') body.password = password();
    try {
      await props.api.request<void>('POST', `/collections/${encodeURIComponent(collectionOf(props.token))}/${props.action}`, { body });
      setDone(true);
    } catch (err) {
      const data = err instanceof ApiError ? err.data : {};
      const fields: Record<string, string> = {};
      for (const [k, v] of Object.entries(data ?? {})) fields[k] = String((v as { message?: unknown }).message ?? '');
      setFieldErrors(fields);
      setError(fields.token ? 'This link is invalid or has expired. Ask for a new one.' : messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="center-screen">
      <div class="card card-narrow">
        <h1>{info().title}</h1>
        <Show when={error()}>
          <p class="alert alert-error" role="alert">{error()}</p>
        </Show>
        <Switch>
          <Match when={done()}>
            <p class="alert alert-info" role="status">{info().done}</p>
          </Match>
          <Match when={!done()}>
            <form onSubmit={submit}>
              <Show when={props.action !== 'confirm-verification'}>
                <FormField label={props.action === 'confirm-password-reset' ? 'New password' : 'Your password'} for="confirm-password" error={fieldErrors().password}>
                  <input id="confirm-password" class="input" type="password" required autocomplete={props.action === 'confirm-password-reset' ? 'new-password' : 'current-password'}
                    value={password()} onInput={(e) => setPassword(e.currentTarget.value)} />
                </FormField>
              </Show>
              <Show when={props.action === 'confirm-password-reset'}>
                <FormField label="New password again" for="confirm-password-again" error={fieldErrors().passwordConfirm}>
                  <input id="confirm-password-again" class="input" type="password" required autocomplete="new-password"
                    value={passwordConfirm()} onInput={(e) => setPasswordConfirm(e.currentTarget.value)} />
                </FormField>
              </Show>
              <button type="submit" class="btn btn-primary" disabled={busy()}>
                {props.action === 'confirm-verification' ? 'Verify' : 'Confirm'}
              </button>
            </form>
          </Match>
        </Switch>
      </div>
    </div>
  );
}

/** Where /api/oauth2-redirect sends the browser (PocketBase's `#/auth/oauth2-redirect-success` and `-failure`). */
export const isOAuth2RedirectPage = (v: string | undefined): boolean => v === 'oauth2-redirect-success' || v === 'oauth2-redirect-failure';

/** The page a provider's sign-in window ends on: the app that opened it has its answer over realtime. */
export function OAuth2RedirectPage(props: { ok: boolean }): JSX.Element {
  return (
    <div class="center-screen">
      <div class="card card-narrow">
        <h1>{props.ok ? 'Auth completed' : 'Failed to authenticate'}</h1>
        <p class={props.ok ? 'alert alert-info' : 'alert alert-error'} role="status">
          {props.ok ? 'You can close this window and go back to the app.' : 'You can close this window and go back to the app to try again.'}
        </p>
        <button type="button" class="btn btn-primary" onClick={() => window.close()}>Close</button>
      </div>
    </div>
  );
}
