// Superuser sign-in (POST /collections/_superusers/auth-with-password).
import { createSignal, Show, type JSX } from 'solid-js';
import type { Api } from '../api.js';
import { messageOf } from '../api.js';
import { FormField } from '../components/form-field.js';

export function LoginPage(props: { api: Api; onSignedIn(): Promise<void>; sessionEnded?: boolean }): JSX.Element {
  const [email, setEmail] = createSignal('');
  const [password, setPassword] = createSignal('');
  const [error, setError] = createSignal('');
  const [busy, setBusy] = createSignal(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      await props.api.authWithPassword('_superusers', email().trim(), password());
      await props.onSignedIn();
    } catch (err) {
      // Every failure is the same message on purpose (no hint about which emails exist).
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="center-screen">
      <form class="card card-narrow" onSubmit={submit}>
        <div class="brand-lockup">
          <span class="brand-mark" aria-hidden="true" />
          <span class="brand-title">Deskbase</span>
        </div>
        <h1>Superuser sign in</h1>
        <Show when={props.sessionEnded && !error()}>
          <p class="alert alert-info" role="status">Your session ended (signed out elsewhere, or expired). Sign in to go back to where you were.</p>
        </Show>
        <Show when={error()}>
          <p class="alert alert-error" role="alert">{error()}</p>
        </Show>
        <FormField label="Email" for="login-email">
          <input id="login-email" type="email" autocomplete="username" autofocus value={email()} onInput={(e) => setEmail(e.currentTarget.value)} required />
        </FormField>
        <FormField label="Password" for="login-password">
          <input id="login-password" type="password" autocomplete="current-password" value={password()} onInput={(e) => setPassword(e.currentTarget.value)} required />
        </FormField>
        <button type="submit" class="btn btn-primary btn-block" disabled={busy()}>
          {busy() ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
