// Moving from PocketBase in the admin UI: the user picks a PocketBase backup zip (data and files, from
// its Backups page) or pb_data/data.db (data only); a desktop file dialog reaches them, and the server
// never reads a path it is given. The file is first sent as a dry run (`?dryRun=true`): the card shows
// what the import would change (collections and fields, records, the rules it opens, what is left out)
// and asks; only "Apply import" sends it again to apply. Then they see what came over and what did not.
// The CLI does the same from a terminal: npm run import-pocketbase -- <pb_data>.
import { createSignal, For, Show, type JSX } from 'solid-js';
import { messageOf, type PocketBaseImportResult } from '../api.js';
import { useApp } from '../app-context.js';
import { pickFile } from '../lib/read-file.js';
import { formatBytes } from '../lib/format.js';
import { Icon } from './icon.js';
import { useToast } from './toasts.js';
import { SchemaDiff, TransferNotes } from './transfer-report.js';

function RecordCounts(props: { result: PocketBaseImportResult }): JSX.Element {
  return (
    <ul class="import-counts">
      <For each={props.result.records}>
        {(x) => (
          <li>
            <b>{x.collection}</b>: {x.count} record{x.count === 1 ? '' : 's'}
            <Show when={x.files > 0}>, {x.files} file{x.files === 1 ? '' : 's'}</Show>
          </li>
        )}
      </For>
    </ul>
  );
}

export function PocketBaseCard(): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [busy, setBusy] = createSignal('');
  const [error, setError] = createSignal('');
  const [pending, setPending] = createSignal<{ file: File; plan: PocketBaseImportResult } | null>(null);
  const [result, setResult] = createSignal<PocketBaseImportResult | null>(null);
  const choose = async () => {
    setError('');
    const file = await pickFile('.zip,.db,application/zip,application/vnd.sqlite3,application/octet-stream');
    if (!file) return;
    setPending(null);
    setResult(null);
    setBusy(`Reading ${file.name} (${formatBytes(file.size)})…`);
    try {
      setPending({ file, plan: await app.api.importPocketBase(file, true) });
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy('');
    }
  };
  const apply = async () => {
    const p = pending();
    if (!p) return;
    setError('');
    setBusy(`Importing ${p.file.name} (${formatBytes(p.file.size)})…`);
    try {
      const r = await app.api.importPocketBase(p.file);
      setPending(null);
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
  const warnings = () => pending()?.plan.notes.filter((n) => n.warning === true) ?? [];
  return (
    <section class="card section pocketbase-card">
      <h2>Move from PocketBase</h2>
      <p class="muted section-intro">
        Pick a backup zip from PocketBase's Backups page (v0.23 or later) to bring collections, records, users and their
        files in one step, or the <code>data.db</code> file inside its <code>pb_data</code> folder for everything but the
        files. You see what would change before anything does. Users keep their passwords; collections you already have
        (such as <code>users</code>) keep their fields and records. Nothing changes if anything fails.
      </p>
      <Show when={error()}>
        <p class="alert alert-error" role="alert">Import failed, nothing was changed: {error()}</p>
      </Show>
      <button type="button" class="btn btn-primary" disabled={busy() !== ''} onClick={() => void choose()}>
        <Icon name="database" /> {busy() || 'Import PocketBase backup zip or data.db…'}
      </button>
      <Show when={pending()}>
        {(p) => (
          <div class="import-preview" aria-label="PocketBase import preview">
            <h3>Importing <code>{p().file.name}</code> would:</h3>
            <SchemaDiff changes={p().plan.changes} />
            <RecordCounts result={p().plan} />
            <p class="muted small">Files are looked at and copied when the import is applied.</p>
            <Show when={warnings().length > 0}>
              <div class="import-warnings" role="alert">
                <b>Rules this import opens: check them before applying.</b>
                <ul>
                  <For each={warnings()}>{(n) => <li><b>{n.collection}</b> · <span class="mono">{n.item}</span>: {n.reason}</li>}</For>
                </ul>
              </div>
            </Show>
            <TransferNotes notes={p().plan.notes.filter((n) => n.warning !== true)} />
            <div class="card-actions">
              <button type="button" class="btn" disabled={busy() !== ''} onClick={() => setPending(null)}>Cancel</button>
              <button type="button" class="btn btn-primary" disabled={busy() !== ''} onClick={() => void apply()}>Apply import</button>
            </div>
          </div>
        )}
      </Show>
      <Show when={result()}>
        {(r) => (
          <div class="import-done">
            <RecordCounts result={r()} />
            <TransferNotes notes={r().notes} />
          </div>
        )}
      </Show>
    </section>
  );
}
