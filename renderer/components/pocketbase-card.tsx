// Moving from PocketBase in the admin UI: the user picks a PocketBase backup zip (data and files, from
// its Backups page) or pb_data/data.db (data only); a desktop file dialog reaches them, and the server
// never reads a path it is given. Then they see what came over and what did not. The CLI does the
// same from a terminal: npm run import-pocketbase -- <pb_data>.
import { createSignal, For, Show, type JSX } from 'solid-js';
import { messageOf, type PocketBaseImportResult } from '../api.js';
import { useApp } from '../app-context.js';
import { pickFile } from '../lib/read-file.js';
import { formatBytes } from '../lib/format.js';
import { Icon } from './icon.js';
import { useToast } from './toasts.js';
import { TransferNotes } from './transfer-report.js';

export function PocketBaseCard(): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [busy, setBusy] = createSignal('');
  const [error, setError] = createSignal('');
  const [result, setResult] = createSignal<PocketBaseImportResult | null>(null);
  const choose = async () => {
    setError('');
    const file = await pickFile('.zip,.db,application/zip,application/vnd.sqlite3,application/octet-stream');
    if (!file) return;
    setBusy(`Importing ${file.name} (${formatBytes(file.size)})…`);
    try {
      const r = await app.api.importPocketBase(file);
      setResult(r);
      await app.reloadCollections();
      const files = r.records.reduce((n, x) => n + x.files, 0);
      toast(`Imported ${r.records.reduce((n, x) => n + x.count, 0)} records${files > 0 ? ` and ${files} files` : ''} from PocketBase.`);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy('');
    }
  };
  return (
    <section class="card section pocketbase-card">
      <h2>Move from PocketBase</h2>
      <p class="muted section-intro">
        Pick a backup zip from PocketBase's Backups page (v0.23 or later) to bring collections, records, users and their
        files in one step, or the <code>data.db</code> file inside its <code>pb_data</code> folder for everything but the
        files. Users keep their passwords. Nothing changes if anything fails.
      </p>
      <Show when={error()}>
        <p class="alert alert-error" role="alert">Import failed, nothing was changed: {error()}</p>
      </Show>
      <button type="button" class="btn btn-primary" disabled={busy() !== ''} onClick={() => void choose()}>
        <Icon name="database" /> {busy() || 'Import PocketBase backup zip or data.db…'}
      </button>
      <Show when={result()}>
        {(r) => (
          <div class="import-done">
            <ul class="import-counts">
              <For each={r().records}>
                {(x) => (
                  <li>
                    <b>{x.collection}</b>: {x.count} record{x.count === 1 ? '' : 's'}
                    <Show when={x.files > 0}>, {x.files} file{x.files === 1 ? '' : 's'}</Show>
                  </li>
                )}
              </For>
            </ul>
            <TransferNotes notes={r().notes} />
          </div>
        )}
      </Show>
    </section>
  );
}
