// The zips in the data folder's backups/ (those this list writes and the before-restore copies a
// restore keeps), over PocketBase's backups API: create one now, download (a link with a file token),
// restore (after a confirmation; the sidebar then shows the restored collections) and delete.
import { createResource, createSignal, For, Show, type JSX } from 'solid-js';
import type { BackupFile } from '../api.js';
import { messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { formatBytes, formatDate } from '../lib/format.js';
import { ConfirmDialog } from './dialog.js';
import { Icon } from './icon.js';
import { useToast } from './toasts.js';

/** PocketBase's `2026-11-26 14:56:46.123Z` as an ISO date for formatDate. */
const isoOf = (modified: string) => modified.replace(' ', 'T');

export function BackupsList(props: { onRestored(): Promise<void> }): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [list, { refetch }] = createResource(() => app.api.listBackups());
  const [busy, setBusy] = createSignal<string | null>(null);
  const [error, setError] = createSignal('');
  const [confirm, setConfirm] = createSignal<{ kind: 'restore' | 'delete'; backup: BackupFile } | null>(null);
  const items = () => (list.error ? [] : (list.latest ?? []));

  const run = async (label: string, work: () => Promise<void>) => {
    setBusy(label);
    setError('');
    try {
      await work();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(null);
      setConfirm(null);
      void refetch();
    }
  };
  const create = () =>
    run('create', async () => {
      await app.api.createBackup();
      toast('Backup written to the backups folder.');
    });
  const download = (b: BackupFile) =>
    run(b.key, async () => {
      const a = document.createElement('a');
      a.href = app.api.backupUrl(b.key, await app.api.fileToken());
      a.download = b.key;
      document.body.append(a);
      a.click();
      a.remove();
    });
  const restore = (b: BackupFile) => {
    const restored = props.onRestored; // the handler as it is at the click
    return run(b.key, async () => {
      const res = await app.api.restoreBackupKey(b.key);
      await restored();
      const missing = res.missingFiles.length > 0 ? ` ${res.missingFiles.length} file(s) its records name were not in it.` : '';
      toast(`Restored ${b.key}. The data before it is in ${res.previous}.${missing}`);
    });
  };
  const remove = (b: BackupFile) =>
    run(b.key, async () => {
      await app.api.deleteBackup(b.key);
      toast(`Backup ${b.key} deleted.`);
    });

  return (
    <section class="card section backups-list">
      <div class="section-head">
        <h2>Backups in the data folder</h2>
        <button type="button" class="btn btn-primary" disabled={busy() !== null} onClick={() => void create()}>
          <Icon name="plus" /> {busy() === 'create' ? 'Writing…' : 'Create backup'}
        </button>
      </div>
      <p class="muted section-intro">
        Zips kept in <code>backups/</code> beside the data, including the copy a restore keeps of the data it replaced.
      </p>
      <Show when={error() || list.error}>
        <p class="alert alert-error" role="alert">{error() || messageOf(list.error)}</p>
      </Show>
      <div class="table-wrap">
        <table class="table backups-table">
          <thead>
            <tr>
              <th scope="col">Backup</th>
              <th scope="col" class="backups-size">Size</th>
              <th scope="col">Written</th>
              <th scope="col"><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            <For each={items()} fallback={<tr><td colSpan={4} class="muted">{list.loading ? 'Loading…' : 'No backups in the folder yet.'}</td></tr>}>
              {(b) => (
                <tr data-key={b.key}>
                  <td class="backups-key"><code title={b.key}>{b.key}</code></td>
                  <td class="backups-size">{formatBytes(b.size)}</td>
                  <td>{formatDate(isoOf(b.modified))}</td>
                  <td class="actions">
                    <button type="button" class="btn-icon" aria-label={`Download ${b.key}`} title="Download" disabled={busy() !== null} onClick={() => void download(b)}>
                      <Icon name="download" />
                    </button>
                    <button type="button" class="btn btn-small" aria-label={`Restore ${b.key}`} disabled={busy() !== null} onClick={() => setConfirm({ kind: 'restore', backup: b })}>
                      Restore
                    </button>
                    <button type="button" class="btn-icon danger" aria-label={`Delete ${b.key}`} title="Delete" disabled={busy() !== null} onClick={() => setConfirm({ kind: 'delete', backup: b })}>
                      <Icon name="trash" />
                    </button>
                  </td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </div>
      <Show when={confirm()}>
        {(c) => (
          <ConfirmDialog
            title={c().kind === 'restore' ? 'Restore this backup?' : 'Delete this backup?'}
            confirmLabel={c().kind === 'restore' ? 'Replace all data' : 'Delete backup'}
            danger
            busy={busy() !== null}
            onConfirm={() => void (c().kind === 'restore' ? restore(c().backup) : remove(c().backup))}
            onCancel={() => setConfirm(null)}
          >
            <p>
              <Show
                when={c().kind === 'restore'}
                fallback={<><code>{c().backup.key}</code> will be deleted from the backups folder. This cannot be undone.</>}
              >
                All current data is replaced by <code>{c().backup.key}</code>. The data it replaces is kept as a zip in this list.
                Signed-in sessions may end.
              </Show>
            </p>
          </ConfirmDialog>
        )}
      </Show>
    </section>
  );
}
