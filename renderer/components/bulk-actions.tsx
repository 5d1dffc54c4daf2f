// What can be done with the selected records: export them (CSV or JSON: the server's records export
// with their ids, so the file has the same values, rules and formula guard as every other export) or
// delete them after a confirmation. Deletes go through the batch API
// (lib/bulk-delete.ts), so each obeys the collection's rules and cascades; a failure stops the run and
// says which record and why.
import { createSignal, Show, type JSX } from 'solid-js';
import type { Collection } from '../api.js';
import { messageOf } from '../api.js';
import { BulkDeleteError, deleteInBatches } from '../lib/bulk-delete.js';
import { useApp } from '../app-context.js';
import { saveBlob } from '../lib/save-file.js';
import { formatCount } from '../lib/format.js';
import type { Selection } from '../lib/selection.js';
import { ConfirmDialog } from './dialog.js';
import { Icon } from './icon.js';
import { useToast } from './toasts.js';

/** The ids one export may name (the server's MAX_EXPORT_IDS). */
const MAX_EXPORT_IDS = 500;

export function BulkActions(props: { collection: Collection; selection: Selection; onDeleted(ids: string[]): void }): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [confirm, setConfirm] = createSignal(false);
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal('');
  const n = () => props.selection.count();
  const noun = (k: number) => `${formatCount(k)} record${k === 1 ? '' : 's'}`;

  const exportAs = async (format: 'csv' | 'json') => {
    const ids = props.selection.records().map((r) => r.id);
    if (ids.length > MAX_EXPORT_IDS) {
      toast(`Select at most ${formatCount(MAX_EXPORT_IDS)} records to export them; Export / import above exports everything the filter selects.`, 'error');
      return;
    }
    setBusy(true);
    try {
      const file = await app.api.exportRecords(props.collection.name, format, { ids });
      saveBlob(file.blob, file.filename);
      toast(`Exported ${noun(ids.length)} as ${format.toUpperCase()}.`);
    } catch (err) {
      toast(`Export failed: ${messageOf(err)}`, 'error');
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    setBusy(true);
    setError('');
    let done: string[] = [];
    try {
      const ids = props.selection.records().map((r) => r.id);
      done = await deleteInBatches(app.api, props.collection.name, ids);
      toast(`Deleted ${noun(done.length)}.`);
    } catch (err) {
      if (err instanceof BulkDeleteError) done = err.deleted;
      const text = `${messageOf(err)}${done.length > 0 ? ` ${noun(done.length)} ${done.length === 1 ? 'was' : 'were'} deleted before it.` : ''}`;
      setError(text);
      toast(text, 'error');
    } finally {
      setBusy(false);
      setConfirm(false);
      if (done.length > 0) props.onDeleted(done);
    }
  };

  return (
    <>
      <Show when={n() > 0}>
        <div class="bulk-bar" role="region" aria-label="Selected records">
          <b>{noun(n())} selected</b>
          <button type="button" class="btn btn-small btn-ghost" onClick={() => props.selection.clear()}>Clear selection</button>
          <span class="spacer" />
          <button type="button" class="btn btn-small" disabled={busy()} onClick={() => void exportAs('csv')}>
            <Icon name="download" /> Export CSV
          </button>
          <button type="button" class="btn btn-small" disabled={busy()} onClick={() => void exportAs('json')}>
            <Icon name="download" /> Export JSON
          </button>
          <button type="button" class="btn btn-small btn-danger" onClick={() => setConfirm(true)}>
            <Icon name="trash" /> Delete selected
          </button>
        </div>
      </Show>
      <Show when={error()}>
        <p class="alert alert-error" role="alert">{error()}</p>
      </Show>
      <Show when={confirm()}>
        <ConfirmDialog title={`Delete ${noun(n())}?`} confirmLabel={`Delete ${noun(n())}`} danger busy={busy()} onConfirm={() => void remove()} onCancel={() => setConfirm(false)}>
          <p>
            The selected records will be deleted. Records that point at them through relations are updated or deleted as their
            fields say. This cannot be undone.
          </p>
        </ConfirmDialog>
      </Show>
    </>
  );
}
