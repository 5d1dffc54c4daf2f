// The Crons list (PocketBase's Settings > Crons): the cron jobs the server runs (`cronAdd()` in
// pb_hooks, and the server's own), each with its schedule and a "Run now" (GET /api/crons,
// POST /api/crons/{id}: PocketBase's shape, `[{id, expression}]`).
import { createResource, createSignal, For, Show, type JSX } from 'solid-js';
import type { CronJob } from '../api.js';
import { messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { useToast } from '../components/toasts.js';
import { Icon } from '../components/icon.js';

export function CronsPage(): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [jobs, { refetch }] = createResource(() => app.api.listCrons());
  const [running, setRunning] = createSignal<string | null>(null);
  const [error, setError] = createSignal('');
  const run = async (job: CronJob) => {
    setRunning(job.id);
    setError('');
    try {
      await app.api.runCron(job.id);
      toast(`Started “${job.id}”.`);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setRunning(null);
    }
  };
  return (
    <div class="page crons-page">
      <header class="page-header">
        <div class="page-title">
          <h1>Crons</h1>
        </div>
        <button type="button" class="btn" onClick={() => refetch()} aria-label="Refresh crons">
          <Icon name="refresh" /> Refresh
        </button>
      </header>
      <p class="muted">Jobs registered with <code>cronAdd()</code> in <code>pb_hooks</code>, on the server's clock (UTC). “Run now” starts one at once; its output goes to the Logs.</p>
      <Show when={error() || jobs.error}>
        <p class="alert alert-error" role="alert">{error() || messageOf(jobs.error)}</p>
      </Show>
      <div class="table-wrap">
        <table class="table crons-table">
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Schedule</th>
              <th scope="col"><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            <For each={jobs.latest ?? []}>
              {(job) => (
                <tr>
                  <td class="mono">{job.id}</td>
                  <td class="mono">{job.expression}</td>
                  <td class="actions">
                    <button type="button" class="btn btn-small" disabled={running() !== null} onClick={() => run(job)} aria-label={`Run ${job.id} now`}>
                      {running() === job.id ? 'Starting…' : 'Run now'}
                    </button>
                  </td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
        <Show when={jobs.latest && jobs.latest.length === 0}>
          <div class="empty">No cron jobs. Add one with <code>cronAdd(id, "0 * * * *", () =&gt; …)</code> in a <code>pb_hooks/*.pb.js</code> file.</div>
        </Show>
        <Show when={jobs.loading && !jobs.latest}>
          <div class="empty"><div class="spinner" /></div>
        </Show>
      </div>
    </div>
  );
}
