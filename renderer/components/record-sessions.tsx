// An auth record's sessions, for the superuser editing it: where that user is signed in, and ending
// one session or all of them (GET/DELETE /collections/{c}/records/{id}/sessions).
import { createResource, createSignal, For, Show, type JSX } from 'solid-js';
import type { SessionInfo } from '../api.js';
import { messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { formatDate } from '../lib/format.js';
import { describeUserAgent } from '../lib/user-agent.js';
import { useToast } from './toasts.js';

export function RecordSessions(props: { collection: string; recordId: string }): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [sessions, { refetch }] = createResource(async () => (await app.api.listRecordSessions(props.collection, props.recordId)).items);
  const [busy, setBusy] = createSignal<string | null>(null);
  const [error, setError] = createSignal('');
  const list = () => (sessions.error ? [] : (sessions.latest ?? []));

  const revoke = async (targets: SessionInfo[], key: string) => {
    setBusy(key);
    setError('');
    try {
      for (const s of targets) await app.api.revokeRecordSession(props.collection, props.recordId, s.id);
      toast(targets.length === 1 ? 'Session revoked.' : `${targets.length} sessions revoked.`);
    } catch (err) {
      setError(`Could not revoke: ${messageOf(err)}`);
    } finally {
      setBusy(null);
      await refetch();
    }
  };

  return (
    <section class="record-sessions" aria-labelledby="record-sessions-title">
      <div class="record-sessions-head">
        <h3 id="record-sessions-title">Sessions</h3>
        <Show when={list().length > 1}>
          <button type="button" class="btn btn-small btn-danger-ghost" disabled={busy() !== null} onClick={() => void revoke(list(), 'all')}>
            {busy() === 'all' ? 'Revoking…' : 'Sign out everywhere'}
          </button>
        </Show>
      </div>
      <Show when={error() || sessions.error}>
        <p class="error-text" role="alert">{error() || `Could not load sessions: ${messageOf(sessions.error)}`}</p>
      </Show>
      <Show when={!sessions.loading || sessions.latest} fallback={<p class="muted small">Loading…</p>}>
        <ul class="session-list">
          <For each={list()} fallback={<li class="muted small">Not signed in anywhere.</li>}>
            {(s) => (
              <li>
                <div>
                  <div>{describeUserAgent(s.userAgent)}</div>
                  <small class="muted">Signed in {formatDate(s.created)} · expires {formatDate(s.expires)}</small>
                </div>
                <button type="button" class="btn btn-small btn-danger-ghost" disabled={busy() !== null} aria-label={`Revoke session ${s.id}`} onClick={() => void revoke([s], s.id)}>
                  {busy() === s.id ? 'Revoking…' : 'Revoke'}
                </button>
              </li>
            )}
          </For>
        </ul>
      </Show>
    </section>
  );
}
