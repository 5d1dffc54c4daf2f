// The records page's data in and out: export what the current filter and sort select (the whole
// collection without a filter) as CSV or JSON, and import a CSV, JSON or NDJSON file, all rows or
// none; a refused import lists its first errors by row and field.
import { createSignal, For, Show, type JSX } from 'solid-js';
import { ApiError, messageOf, type ErrorData } from '../api.js';
import { useApp } from '../app-context.js';
import { pickFile } from '../lib/read-file.js';
import { saveBlob } from '../lib/save-file.js';
import { createDismiss } from '../lib/dismiss.js';
import { Icon } from './icon.js';
import { useToast } from './toasts.js';

type Format = 'csv' | 'json' | 'ndjson';

function formatOf(name: string): Format {
  if (/\.csv$/i.test(name)) return 'csv';
  if (/\.(ndjson|jsonl)$/i.test(name)) return 'ndjson';
  return 'json';
}

/** `row 3 · title: Cannot be blank.` for the first rows the server refused. */
export function rowErrors(data: ErrorData, max = 5): string[] {
  const rows = data.rows;
  if (typeof rows !== 'object' || rows === null || typeof rows.message === 'string') return [];
  return Object.entries(rows as ErrorData).slice(0, max).map(([row, fields]) => {
    const first = Object.entries(fields as ErrorData)[0];
    const message = first && typeof first[1].message === 'string' ? `${first[0]}: ${first[1].message}` : '';
    return `row ${row}${message ? ` · ${message}` : ''}`;
  });
}

export interface ImportProblem {
  message: string;
  rows: string[];
}

/** A refused import, shown under the toolbar until dismissed. */
export function ImportErrors(props: { problem: ImportProblem; onDismiss(): void }): JSX.Element {
  return (
    <div class="alert alert-error import-errors" role="alert">
      <b>Nothing was imported.</b> {props.problem.message}
      <ul><For each={props.problem.rows}>{(r) => <li>{r}</li>}</For></ul>
      <button type="button" class="btn-icon" aria-label="Dismiss" onClick={() => props.onDismiss()}><Icon name="x" /></button>
    </div>
  );
}

export function RecordsTransfer(props: { collection: string; filter: string; sort: string; readOnly?: boolean; onImported(): void; onFailed(problem: ImportProblem | null): void }): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const [open, setOpen] = createSignal(false);
  const [busy, setBusy] = createSignal(false);
  let box: HTMLDivElement | undefined;
  createDismiss(() => box, open, () => setOpen(false));

  const exportAs = async (format: Format) => {
    setOpen(false);
    setBusy(true);
    try {
      const file = await app.api.exportRecords(props.collection, format, { filter: props.filter, sort: props.sort });
      saveBlob(file.blob, file.filename);
    } catch (err) {
      toast(`Export failed: ${messageOf(err)}`, 'error');
    } finally {
      setBusy(false);
    }
  };
  const importFile = async () => {
    setOpen(false);
    props.onFailed(null);
    const file = await pickFile('.csv,.json,.ndjson,.jsonl,text/csv,application/json');
    if (!file) return;
    setBusy(true);
    try {
      const r = await app.api.importRecords(props.collection, file, formatOf(file.name));
      toast(`Imported ${r.imported} record${r.imported === 1 ? '' : 's'}.`);
      props.onImported();
    } catch (err) {
      props.onFailed({ message: messageOf(err), rows: err instanceof ApiError ? rowErrors(err.data) : [] });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="menu-wrap" ref={box}>
      <button type="button" class="btn" disabled={busy()} aria-expanded={open()} aria-haspopup="menu" onClick={() => setOpen(!open())}>
        <Icon name="download" /> Export / import
      </button>
      <Show when={open()}>
        <div class="menu" role="menu">
          <button type="button" role="menuitem" onClick={() => void exportAs('csv')}>Export {props.filter ? 'filtered' : 'all'} as CSV</button>
          <button type="button" role="menuitem" onClick={() => void exportAs('json')}>Export {props.filter ? 'filtered' : 'all'} as JSON</button>
          <Show when={!props.readOnly}>
            <button type="button" role="menuitem" onClick={() => void importFile()}>Import CSV or JSON…</button>
          </Show>
        </div>
      </Show>
    </div>
  );
}
