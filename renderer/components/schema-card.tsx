// The schema in and out: export it as PocketBase's collections JSON, download TypeScript types for the
// SDK, and import a collections file (from PocketBase or another Deskbase) after a preview of what it
// would add, change and remove (the server's dry run: the same steps, rolled back).
import { createSignal, Show, type JSX } from 'solid-js';
import { messageOf, type SchemaImportResult } from '../api.js';
import { useApp } from '../app-context.js';
import { pickFile } from '../lib/read-file.js';
import { saveBlob } from '../lib/save-file.js';
import { Icon } from './icon.js';
import { useToast } from './toasts.js';
import { SchemaDiff, TransferNotes } from './transfer-report.js';

interface Pending {
  file: string;
  collections: unknown[];
  preview: SchemaImportResult;
}

export function SchemaCard(): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal('');
  const [pending, setPending] = createSignal<Pending | null>(null);
  const [deleteMissing, setDeleteMissing] = createSignal(false);
  const [applied, setApplied] = createSignal<SchemaImportResult | null>(null);

  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError('');
    try {
      await fn();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const exportSchema = () => run(async () => {
    const json = await app.api.exportSchema();
    saveBlob(new Blob([`${JSON.stringify(json, null, 2)}\n`], { type: 'application/json' }), 'collections.json');
    toast(`Exported ${json.length} collection${json.length === 1 ? '' : 's'}.`);
  });
  const downloadTypes = () => run(async () => {
    const file = await app.api.downloadTypes();
    saveBlob(file.blob, file.filename);
  });
  const preview = (collections: unknown[], file: string, del: boolean) => run(async () => {
    const result = await app.api.importSchema(collections, del, true);
    setPending({ file, collections, preview: result });
  });
  const choose = () => {
    const del = deleteMissing(); // as the box is when the file is chosen
    return run(async () => {
      setApplied(null);
      const file = await pickFile('.json,application/json');
      if (!file) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(await file.text());
      } catch {
        throw new Error(`${file.name} is not JSON.`);
      }
      // PocketBase's export is an array; some tools wrap it as { collections: [...] }
      const list = Array.isArray(parsed) ? parsed : (parsed as { collections?: unknown }).collections;
      if (!Array.isArray(list)) throw new Error(`${file.name} holds no list of collections.`);
      setPending(null);
      setPending({ file: file.name, collections: list, preview: await app.api.importSchema(list, del, true) });
    });
  };
  const toggleDelete = (on: boolean) => {
    setDeleteMissing(on);
    const p = pending();
    if (p) void preview(p.collections, p.file, on);
  };
  const apply = () => {
    const p = pending();
    const del = deleteMissing();
    return run(async () => {
      if (!p) return;
      const result = await app.api.importSchema(p.collections, del, false);
      setPending(null);
      setApplied(result);
      await app.reloadCollections();
      toast('Schema imported.');
    });
  };

  return (
    <section class="card section schema-card">
      <h2>Schema</h2>
      <p class="muted section-intro">
        Collections as PocketBase's collections JSON: export them to another Deskbase or to PocketBase, or import a file
        exported from either. Types for the <code>pocketbase</code> JavaScript SDK make <code>pb.collection('posts')</code> typed.
      </p>
      <Show when={error()}>
        <p class="alert alert-error" role="alert">{error()}</p>
      </Show>
      <div class="card-actions">
        <button type="button" class="btn" disabled={busy()} onClick={() => void exportSchema()}><Icon name="download" /> Export schema</button>
        <button type="button" class="btn" disabled={busy()} onClick={() => void downloadTypes()}><Icon name="code" /> TypeScript types</button>
        <button type="button" class="btn btn-primary" disabled={busy()} onClick={() => void choose()}><Icon name="folder" /> Import schema…</button>
      </div>
      <Show when={pending()}>
        {(p) => (
          <div class="import-preview" aria-label="Import preview">
            <h3>Importing <code>{p().file}</code> would:</h3>
            <SchemaDiff changes={p().preview.changes} />
            <TransferNotes notes={p().preview.notes} />
            <label class="check">
              <input type="checkbox" checked={deleteMissing()} onChange={(e) => toggleDelete(e.currentTarget.checked)} />
              Delete collections the file does not have (and their records)
            </label>
            <div class="card-actions">
              <button type="button" class="btn" onClick={() => setPending(null)}>Cancel</button>
              <button type="button" class="btn btn-primary" disabled={busy()} onClick={() => void apply()}>Apply import</button>
            </div>
          </div>
        )}
      </Show>
      <Show when={applied()}>
        {(r) => (
          <div class="import-done">
            <p class="alert alert-success" role="status">Schema imported.</p>
            <TransferNotes notes={r().notes} />
          </div>
        )}
      </Show>
    </section>
  );
}
