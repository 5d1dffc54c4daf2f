// The records grid: a sticky header of sortable columns, a selection box per row (Shift for ranges), and
// rows that are reached with the keyboard (one row in the Tab order, arrows move, Enter opens, Space
// selects). Rows are keyed by record: a reload that brings the same record back keeps its row.
// Long pages are windowed (lib/row-window.ts): only the rows in view and a margin are in the DOM.
// Columns have fixed widths (lib/column-widths.ts), so rows coming into view never move the columns.
import { createRenderEffect, createSelector, createSignal, For, Show, type JSX } from 'solid-js';
import type { Collection, Field, RecordModel } from '../api.js';
import { renderCell, type FileUrl } from './cell.js';
import type { Selection } from '../lib/selection.js';
import { sortKeyOf } from '../lib/sort-keys.js';
import { columnWidth, SELECT_COLUMN } from '../lib/column-widths.js';
import { createRowWindow } from '../lib/row-window.js';

export interface RecordsTableProps {
  rows: RecordModel[];
  columns: Field[];
  sort: string;
  selection: Selection;
  findCollection(id: string): Collection | undefined;
  /** Thumbnails of image files in file columns. */
  fileUrl?: FileUrl;
  onSort(key: string): void;
  onOpen(record: RecordModel): void;
}

export function RecordsTable(props: RecordsTableProps): JSX.Element {
  const [active, setActive] = createSignal<string | null>(null);
  // The row in the Tab order: the last one focused, else the first.
  const activeId = () => (props.rows.some((r) => r.id === active()) ? active() : (props.rows[0]?.id ?? null));
  const isActive = createSelector(activeId);
  const allOnPage = () => props.rows.length > 0 && props.rows.every((r) => props.selection.has(r.id));
  const someOnPage = () => !allOnPage() && props.rows.some((r) => props.selection.has(r.id));
  let table: HTMLTableElement | undefined;
  let body: HTMLTableSectionElement | undefined;

  const win = createRowWindow(() => props.rows, () => table);
  const { range, rowHeight } = win;

  const focusRow = (i: number) => {
    const target = props.rows[Math.max(0, Math.min(i, props.rows.length - 1))];
    if (!target) return;
    win.reveal(props.rows.indexOf(target));
    const row = body?.querySelector<HTMLTableRowElement>(`tr[data-id="${CSS.escape(target.id)}"]`);
    row?.focus();
    row?.scrollIntoView({ block: 'nearest' });
  };

  const onRowKey = (e: KeyboardEvent, r: RecordModel) => {
    if (e.target !== e.currentTarget) return;
    const i = props.rows.indexOf(r);
    const moves: Record<string, number> = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: props.rows.length - 1, PageDown: i + 10, PageUp: i - 10 };
    if (e.key in moves) {
      e.preventDefault();
      focusRow(moves[e.key]);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      props.onOpen(r);
    } else if (e.key === ' ') {
      e.preventDefault();
      props.selection.toggle(r, props.rows, e.shiftKey);
    }
  };

  const minWidth = () => SELECT_COLUMN + props.columns.reduce((sum, f) => sum + columnWidth(f), 0);
  const span = () => props.columns.length + 1;

  return (
    <table ref={table} class="table records-table" style={{ 'min-width': `${minWidth()}px` }} aria-rowcount={props.rows.length + 1}>
      <colgroup>
        <col style={{ width: `${SELECT_COLUMN}px` }} />
        <For each={props.columns}>{(f) => <col style={{ width: `${columnWidth(f)}px` }} />}</For>
      </colgroup>
      <thead>
        <tr aria-rowindex={1}>
          <th scope="col" class="select-col">
            <input
              ref={(el) => createRenderEffect(() => (el.indeterminate = someOnPage()))}
              type="checkbox"
              aria-label="Select all on this page"
              checked={allOnPage()}
              disabled={props.rows.length === 0}
              onChange={() => props.selection.togglePage(props.rows)}
            />
          </th>
          <For each={props.columns}>{(f) => <SortHeader field={f} sort={props.sort} findCollection={props.findCollection} onSort={props.onSort} />}</For>
        </tr>
      </thead>
      <tbody ref={body}>
        <SpacerRow height={range().first * rowHeight()} span={span()} />
        <For each={win.shown()}>
          {(r) => (
            <tr
              data-id={r.id}
              tabIndex={isActive(r.id) ? 0 : -1}
              classList={{ selected: props.selection.has(r.id) }}
              aria-selected={props.selection.has(r.id)}
              aria-rowindex={props.rows.indexOf(r) + 2}
              aria-label={`Record ${r.id}`}
              onFocus={() => setActive(r.id)}
              onClick={() => props.onOpen(r)}
              onKeyDown={(e) => onRowKey(e, r)}
            >
              {/* The whole cell is the box's target, and a click there never opens the record. */}
              <td
                class="select-col"
                onClick={(e) => {
                  e.stopPropagation();
                  props.selection.toggle(r, props.rows, e.shiftKey);
                }}
              >
                <input type="checkbox" tabIndex={-1} aria-label={`Select record ${r.id}`} checked={props.selection.has(r.id)} />
              </td>
              <For each={props.columns}>{(f) => <td data-type={f.type}>{renderCell(r, f, props.findCollection, props.fileUrl)}</td>}</For>
            </tr>
          )}
        </For>
        <SpacerRow height={(props.rows.length - range().last) * rowHeight()} span={span()} />
      </tbody>
    </table>
  );
}

/** A column's header: sorts by the field (a relation by its label's path), shows the direction. */
function SortHeader(props: { field: Field; sort: string; findCollection(id: string): Collection | undefined; onSort(key: string): void }): JSX.Element {
  const key = () => sortKeyOf(props.field, props.findCollection);
  const dir = () => (props.sort === key() ? 'ascending' : props.sort === `-${key()}` ? 'descending' : undefined);
  return (
    <th scope="col" aria-sort={dir()}>
      <button type="button" class="th-sort" onClick={() => props.onSort(key())} title={`Sort by ${key()}`}>
        <span>{props.field.name}</span>
        <span class="sort-mark" aria-hidden="true">{dir() === 'ascending' ? '▲' : dir() === 'descending' ? '▼' : ''}</span>
      </button>
    </th>
  );
}

/** The height of the rows a window leaves out, above or below it (none: no row). */
function SpacerRow(props: { height: number; span: number }): JSX.Element {
  return (
    <Show when={props.height > 0}>
      <tr class="spacer-row" aria-hidden="true" style={{ height: `${props.height}px` }}>
        <td colSpan={props.span} />
      </tr>
    </Show>
  );
}
