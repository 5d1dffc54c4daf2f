// "Download backup": GET /api/backup with the bearer token, saved as the file the server names.
import { createSignal, Show, type JSX } from 'solid-js';
import { messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { saveBlob } from '../lib/save-file.js';
import { formatBytes } from '../lib/format.js';
import { useToast } from './toasts.js';
import { Icon } from './icon.js';

export function BackupCard(): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal('');
  const [last, setLast] = createSignal('');
  const download = async () => {
    setBusy(true);
    setError('');
    try {
      const file = await app.api.downloadBackup();
      saveBlob(file.blob, file.filename);
      const size = formatBytes(file.blob.size);
      setLast(`${file.filename} (${size})`);
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
      <Show when={last()}>
        <p class="muted small backup-last">Last one: <code>{last()}</code></p>
      </Show>
    </section>
  );
}
