// "Download backup": GET /api/backup with the bearer token, saved as the zip the server names. The
// last download (when, which file, how big) is remembered in this browser, so the page says how old the
// newest copy is. "Restore": a backup zip picked here replaces all data (after a confirmation); the
// server keeps the previous data as a zip in the data folder's backups/.
import { createSignal, Show, type JSX } from 'solid-js';
import { messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { saveBlob } from '../lib/save-file.js';
import { formatBytes, formatDate } from '../lib/format.js';
import { useToast } from './toasts.js';
import { Icon } from './icon.js';

export function BackupCard(props: { onRestored?(): Promise<void> | void }): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal('');
  const [last, setLast] = createSignal<LastBackup | null>(readLast());
  const [restoring, setRestoring] = createSignal<File | null>(null);
  const [restored, setRestored] = createSignal('');
  const restore = async () => {
    const archive = restoring();
    if (!archive) return;
    setBusy(true);
    setError('');
    try {
      const res = await app.api.restoreBackup(archive);
      const missing = res.missingFiles.length > 0 ? ` ${res.missingFiles.length} file(s) its records name were not in it.` : '';
      setRestored(`Restored ${archive.name}. The previous data is in ${res.previous}.${missing}`);
      await props.onRestored?.();
      toast('Backup restored.');
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
      setRestoring(null);
    }
  };
  const download = async () => {
    setBusy(true);
    setError('');
    try {
      const file = await app.api.downloadBackup();
      saveBlob(file.blob, file.filename);
      const size = formatBytes(file.blob.size);
      const entry = { at: new Date().toISOString(), filename: file.filename, size };
      setLast(entry);
      writeLast(entry);
      toast(`Backup ready (${size}).`);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card section">
      <h2>Backup and restore</h2>
      <p class="muted section-intro">
        A consistent copy of everything (collections, records, superusers and uploaded files) as one zip holding{' '}
        <code>data.db</code> and <code>storage/</code>, taken while Deskbase runs. Restoring a backup replaces all
        data; the data it replaces is kept as a zip in the data folder's <code>backups/</code>.
      </p>
      <Show when={error()}>
        <p class="alert alert-error" role="alert">Backup failed: {error()}</p>
      </Show>
      <button type="button" class="btn btn-primary" disabled={busy()} onClick={() => void download()}>
        <Icon name="download" /> {busy() ? 'Preparing…' : 'Download backup'}
      </button>
      <Show when={last()} fallback={<p class="muted small backup-last">No backup downloaded from this browser yet.</p>}>
        {(l) => (
          <p class="muted small backup-last">
            Last backup: <time datetime={l().at}>{formatDate(l().at)}</time>, <code>{l().filename}</code> ({l().size})
          </p>
        )}
      </Show>
      <div class="restore-row">
        <label class="btn file-btn" classList={{ disabled: busy() }}>
          <Icon name="upload" /> Restore from a backup…
          <input type="file" accept=".zip,application/zip" class="visually-hidden" aria-label="Backup zip to restore" disabled={busy()}
            onChange={(e) => { setRestoring(e.currentTarget.files?.[0] ?? null); e.currentTarget.value = ''; }} />
        </label>
        <Show when={restoring()}>
          {(f) => (
            <div class="alert alert-info" role="alertdialog" aria-label="Confirm restore">
              <p>Replace all current data with <code>{f().name}</code> ({formatBytes(f().size)})? Signed-in sessions may end.</p>
              <button type="button" class="btn btn-danger" disabled={busy()} onClick={() => void restore()}>{busy() ? 'Restoring…' : 'Replace all data'}</button>{' '}
              <button type="button" class="btn btn-ghost" disabled={busy()} onClick={() => setRestoring(null)}>Cancel</button>
            </div>
          )}
        </Show>
        <Show when={restored()}>
          <p class="alert alert-info" role="status">{restored()}</p>
        </Show>
      </div>
    </section>
  );
}

export interface LastBackup {
  at: string;
  filename: string;
  size: string;
}
const LAST_KEY = 'deskbase.lastBackup';

export function readLast(storage: Storage = localStorage): LastBackup | null {
  try {
    const v: unknown = JSON.parse(storage.getItem(LAST_KEY) ?? 'null');
    if (typeof v !== 'object' || v === null) return null;
    const o = v as Record<string, unknown>;
    return typeof o.at === 'string' && typeof o.filename === 'string' && typeof o.size === 'string' ? { at: o.at, filename: o.filename, size: o.size } : null;
  } catch {
    return null;
  }
}

function writeLast(entry: LastBackup, storage: Storage = localStorage): void {
  try {
    storage.setItem(LAST_KEY, JSON.stringify(entry));
  } catch {
    // Storage full or disabled: the line shows until the page closes.
  }
}
