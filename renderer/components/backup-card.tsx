// "Download backup": GET /api/backup with the bearer token, saved as the file the server names. The
// last download (when, which file, how big) is remembered in this browser, so the page says how old the
// newest copy is. Restore: the server has no restore endpoint yet (issue 14 adds one); its card goes on
// the data page next to this one, and `lastBackup` is where a restore would read what it offers.
import { createSignal, Show, type JSX } from 'solid-js';
import { messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { saveBlob } from '../lib/save-file.js';
import { formatBytes, formatDate } from '../lib/format.js';
import { useToast } from './toasts.js';
import { Icon } from './icon.js';

export function BackupCard(): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal('');
  const [last, setLast] = createSignal<LastBackup | null>(readLast());
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
      <h2>Database backup</h2>
      <p class="muted section-intro">
        A consistent copy of the whole database (collections, records, superusers) as one SQLite file, taken while
        Deskbase runs. To restore, quit Deskbase and put the file in an empty data folder as <code>data.db</code>.
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
