// First run: the setup token printed by the server plus the first superuser's email and password.
import { createEffect, createSignal, on, Show, type JSX } from 'solid-js';
import type { Api, ErrorData } from '../api.js';
import { ApiError, errorAt, messageOf } from '../api.js';
import { useRouter } from '../router.js';
import { FormField } from '../components/form-field.js';

export function SetupPage(props: { api: Api; onDone(): Promise<void> }): JSX.Element {
  const router = useRouter();
  const [token, setToken] = createSignal(router.route().query.get('token') ?? '');
  const [email, setEmail] = createSignal('');
  const [password, setPassword] = createSignal('');
  const [confirm, setConfirm] = createSignal('');
  const [errors, setErrors] = createSignal<ErrorData>({});
  const [message, setMessage] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  // The setup link opened in a tab where /_/ is already open only changes the hash: its token still
  // fills the field (and replaces one typed before, which it is meant to correct).
  createEffect(on(() => router.route().query.get('token'), (t) => {
    if (t) {
      setToken(t);
      setMessage('');
      setErrors({});
    }
  }, { defer: true }));

  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setMessage('');
    if (password() !== confirm()) {
      setErrors({ passwordConfirm: { code: 'validation_values_mismatch', message: 'The passwords do not match.' } });
      return;
    }
    setBusy(true);
    try {
      await props.api.setup({ token: token().trim(), email: email().trim(), password: password() });
      await props.api.authWithPassword('_superusers', email().trim(), password());
      await props.onDone();
    } catch (err) {
      if (err instanceof ApiError) setErrors(err.data);
      // The server's words already say where the token is; adding ours repeated them.
      setMessage(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="center-screen">
      <form class="card card-narrow" onSubmit={submit} novalidate>
        <div class="brand-lockup">
          <span class="brand-mark" aria-hidden="true" />
          <span class="brand-title">Deskbase</span>
        </div>
        <h1>Create your superuser</h1>
        <p class="muted">
          This is the first start. The superuser manages collections, records and rules. The setup token is printed in the
          server's log (and in the URL it printed).
        </p>
        <Show when={message()}>
          <p class="alert alert-error" role="alert">{message()}</p>
        </Show>
        <FormField label="Setup token" for="setup-token" error={errorAt(errors(), 'token')} required>
          <input id="setup-token" class="mono" autocomplete="off" value={token()} onInput={(e) => setToken(e.currentTarget.value)} required />
        </FormField>
        <FormField label="Email" for="setup-email" error={errorAt(errors(), 'email')} required>
          <input id="setup-email" type="email" autocomplete="username" value={email()} onInput={(e) => setEmail(e.currentTarget.value)} required autofocus={token() !== ''} />
        </FormField>
        <FormField label="Password" for="setup-password" error={errorAt(errors(), 'password')} hint="At least 8 characters is a good idea." required>
          <input id="setup-password" type="password" autocomplete="new-password" value={password()} onInput={(e) => setPassword(e.currentTarget.value)} required />
        </FormField>
        <FormField label="Confirm password" for="setup-confirm" error={errorAt(errors(), 'passwordConfirm')} required>
          <input id="setup-confirm" type="password" autocomplete="new-password" value={confirm()} onInput={(e) => setConfirm(e.currentTarget.value)} required />
        </FormField>
        <button type="submit" class="btn btn-primary btn-block" disabled={busy()}>
          {busy() ? 'Creating…' : 'Create superuser and sign in'}
        </button>
      </form>
    </div>
  );
}
