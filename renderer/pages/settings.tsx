// Application and mail settings (GET/PATCH /api/settings), a test e-mail, and the outbox: the messages
// kept while SMTP is off (or that failed to send), newest first, their links clickable, so a local
// developer can verify an account or reset a password without a mail server.
import { createResource, createSignal, For, Show, type JSX } from 'solid-js';
import { ApiError, messageOf, type AppSettings, type KeptMail } from '../api.js';
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

/** `data.meta.appURL.message` → errors keyed `meta.appURL`. */
function fieldErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(err instanceof ApiError)) return out;
  for (const [group, v] of Object.entries(err.data ?? {})) {
    if (v && typeof v === 'object' && 'message' in v) out[group] = String((v as { message: unknown }).message);
    else if (v && typeof v === 'object') for (const [k, e] of Object.entries(v)) out[`${group}.${k}`] = String((e as { message?: unknown }).message ?? '');
  }
  return out;
}

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

  const save = async (e: Event) => {
    e.preventDefault();
    const s = settings();
    if (!s) return;
    setBusy(true);
    setError('');
    setErrors({});
    try {
      const { hideControls: _h, ...meta } = s.meta;
      mutate(await app.api.updateSettings({ meta, smtp: { ...s.smtp, ...(password() !== '' ? { password: password() } : {}) } }));
      setPassword('');
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
            <div class="settings-actions"><button type="submit" class="btn btn-primary" disabled={busy()}>Save settings</button></div>
          </section>
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
