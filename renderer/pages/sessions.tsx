// The signed-in superuser's sessions: where they are signed in, revoke one, or all but this one.
import { createEffect, createResource, createSignal, For, Show, type JSX } from 'solid-js';
import type { SessionInfo } from '../api.js';
import { messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { useToast } from '../components/toasts.js';
import { ConfirmDialog } from '../components/dialog.js';
import { formatDate } from '../lib/format.js';
import { describeUserAgent } from '../lib/user-agent.js';
import { Icon } from '../components/icon.js';
import { Pager } from '../components/pager.js';

/** Sessions shown per page: every sign-in adds one, so a busy account's list pages instead of growing. */
const PER_PAGE = 10;

export function SessionsPage(): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [sessions, { refetch }] = createResource(async () => (await app.api.listSessions()).items);
  const [busy, setBusy] = createSignal<string | null>(null);
  const [confirmAll, setConfirmAll] = createSignal(false);
  const [error, setError] = createSignal('');
  const list = () => (sessions.error ? [] : (sessions.latest ?? []));
  const others = () => list().filter((s) => !s.current);
  const [page, setPage] = createSignal(1);
  const [perPage, setPerPage] = createSignal(PER_PAGE);
  const pages = () => Math.max(1, Math.ceil(list().length / perPage()));
  // A revoke that empties the last page moves back to the page before it.
  createEffect(() => page() > pages() && setPage(pages()));
  const shown = () => list().slice((page() - 1) * perPage(), page() * perPage());

  const revoke = async (s: SessionInfo) => {
    setBusy(s.id);
    setError('');
    try {
      await app.api.revokeSession(s.id);
      toast('Session revoked.');
      await refetch();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(null);
    }
  };
  const revokeOthers = async () => {
    setBusy('all');
    setError('');
    try {
      for (const s of others()) await app.api.revokeSession(s.id);
      toast('Signed out everywhere else.');
      await refetch();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(null);
      setConfirmAll(false);
    }
  };

  return (
    <div class="page">
      <header class="page-header">
        <div class="page-title">
          <h1>Sessions</h1>
        </div>
        <button type="button" class="btn" disabled={others().length === 0 || busy() !== null} onClick={() => setConfirmAll(true)}>
          <Icon name="logout" /> Sign out everywhere else
        </button>
      </header>
      <p class="muted">Where <b>{app.session()?.record?.email}</b> is signed in. Sessions last seven days unless refreshed.</p>
      <Show when={error() || sessions.error}>
        <p class="alert alert-error" role="alert">{error() || messageOf(sessions.error)}</p>
      </Show>
      <div class="table-wrap">
        <table class="table sessions-table">
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Last active</th>
              <th scope="col" class="sessions-signed-in">Signed in</th>
              <th scope="col" class="sessions-expires">Expires</th>
              <th scope="col"><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            <For each={shown()}>
              {(s) => (
                <tr classList={{ current: s.current }}>
                  <td>
                    <div class="device">
                      <Icon name="monitor" />
                      <div>
                        <div>
                          {describeUserAgent(s.userAgent)} <Show when={s.current}><span class="badge badge-true">This device</span></Show>
                        </div>
                        <small class="muted ua" title={s.userAgent}>{s.userAgent || '—'}</small>
                      </div>
                    </div>
                  </td>
                  <td title="The last request this session made (or its last sign-in or refresh, before the server started)">{formatDate(s.lastActive ?? s.created)}</td>
                  <td class="sessions-signed-in">{formatDate(s.created)}</td>
                  <td class="sessions-expires">{formatDate(s.expires)}</td>
                  <td class="actions">
                    <Show when={!s.current} fallback={<span class="muted">Current</span>}>
                      <button type="button" class="btn btn-small btn-danger-ghost" disabled={busy() !== null} onClick={() => revoke(s)}>
                        {busy() === s.id ? 'Revoking…' : 'Revoke'}
                      </button>
                    </Show>
                  </td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
        <Show when={sessions.loading && !sessions.latest}>
          <div class="empty"><div class="spinner" /></div>
        </Show>
      </div>
      <Show when={list().length > PER_PAGE}>
        <Pager page={page()} perPage={perPage()} totalItems={list().length} totalPages={pages()} onPage={setPage} onPerPage={(n) => (setPerPage(n), setPage(1))} noun="sessions" />
      </Show>
      <Show when={confirmAll()}>
        <ConfirmDialog title="Sign out everywhere else?" confirmLabel={`Revoke ${others().length} session${others().length === 1 ? '' : 's'}`} danger busy={busy() === 'all'} onConfirm={() => void revokeOthers()} onCancel={() => setConfirmAll(false)}>
          <p>Every other device and client signed in as this superuser will have to sign in again. This one stays signed in.</p>
        </ConfirmDialog>
      </Show>
    </div>
  );
}
