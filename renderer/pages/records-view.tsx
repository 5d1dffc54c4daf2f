// The records of one collection: filter (with completion), the grid, paging, bulk actions, and the side
// panel to create/edit. Filter, sort, page, page size and the open record live in the URL
// (lib/list-state.ts); the page's records and the open record are ./records-data.ts; the grid's columns
// are remembered per collection (lib/column-prefs.ts).
import { createEffect, createMemo, createSignal, on, Show, untrack, type JSX } from 'solid-js';
import type { Collection, RecordModel } from '../api.js';
import { ApiError, messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { useRouter } from '../router.js';
import { isInternalField, searchableFields } from '../lib/format.js';
import { loadFilterHistory, rememberFilter } from '../lib/filter-history.js';
import { createListState } from '../lib/list-state.js';
import { loadHiddenColumns, saveHiddenColumns } from '../lib/column-prefs.js';
import { createSelection } from '../lib/selection.js';
import { Icon } from '../components/icon.js';
import { Pager } from '../components/pager.js';
import { FilterBox } from '../components/filter-box.js';
import { FilterHelp } from '../components/filter-help.js';
import { RecordPanel } from '../components/record-panel.js';
import { RecordsTable } from '../components/records-table.js';
import { ColumnPicker } from '../components/column-picker.js';
import { BulkActions } from '../components/bulk-actions.js';
import { useToast } from '../components/toasts.js';
import { ImportErrors, RecordsTransfer, type ImportProblem } from '../components/records-transfer.js';
import { useLive } from '../lib/live.js';
import { ViewRecordPanel } from '../components/view-record-panel.js';
import { createOpenRecord, createRecordsPage, expandOf, type OpenRecord } from './records-data.js';

/** The server's detail (data.*.message) when it gave one, else its message. */
function filterDetail(err: ApiError): string {
  const details = Object.values(err.data)
    .map((d) => (typeof d.message === 'string' ? d.message : ''))
    .filter((m) => m !== '');
  return details.length > 0 ? details.join(' ') : err.message;
}

export function RecordsView(props: { collection: Collection }): JSX.Element {
  const app = useApp();
  const toast = useToast();
  // a view collection's records come from its query: browsed, never written
  const readOnly = () => props.collection.type === 'view';
  const defaultSort = () => (props.collection.fields.some((f) => f.name === 'created') ? '-created' : '');
  const list = createListState(useRouter(), () => props.collection.name, defaultSort);
  const q = () => list.query();
  const [draft, setDraft] = createSignal(q().filter);
  createEffect(on(() => q().filter, (f) => setDraft(f)));
  const [showHelp, setShowHelp] = createSignal(false);
  const selection = createSelection();
  const [importProblem, setImportProblem] = createSignal<ImportProblem | null>(null);

  const fields = createMemo(() => props.collection.fields.filter((f) => f.type !== 'password' && !isInternalField(f, props.collection)));
  // this view is made once per collection (keyed in routes.tsx): its remembered columns and filters are read once
  const [hidden, setHidden] = createSignal(untrack(() => loadHiddenColumns(props.collection.id)));
  const columns = createMemo(() => fields().filter((f) => !hidden().includes(f.id)));

  const page = createRecordsPage(app, () => props.collection, list);
  const { data, current, rows, unreachable, filterError, sentFilter, searching, reload } = page;
  const record = createOpenRecord(app, () => props.collection, list, page, toast);
  const { open } = record;
  createEffect(() => selection.refresh(rows()));
  // A filter the server took goes into the box's history (one that it refused does not).
  const [history, setHistory] = createSignal(untrack(() => loadFilterHistory(props.collection.id)));
  createEffect(on(current, (d) => {
    const f = q().filter;
    if (d && f !== '' && !data.error && history()[0] !== f) setHistory(rememberFilter(props.collection.id, f));
  }));

  const applyFilter = (text = draft()) => list.set({ filter: text.trim() });
  const toggleSort = (key: string) => list.set({ sort: q().sort === key ? `-${key}` : q().sort === `-${key}` ? '' : key });
  // another client's writes show up without a manual refresh (rows that come back unchanged keep their DOM)
  useLive(app.api, () => [`${props.collection.name}/*`], reload);

  return (
    <section class="records">
      <div class="toolbar">
        <FilterBox
          collection={props.collection}
          value={draft()}
          applied={q().filter}
          invalid={!!filterError()}
          helpOpen={showHelp()}
          history={history()}
          onInput={setDraft}
          onApply={applyFilter}
          onToggleHelp={() => setShowHelp(!showHelp())}
        />
        <ColumnPicker
          fields={fields()}
          hidden={hidden()}
          onChange={(h) => {
            setHidden(h);
            saveHiddenColumns(props.collection.id, h);
          }}
        />
        <RecordsTransfer collection={props.collection.name} readOnly={readOnly()} filter={sentFilter()} sort={q().sort} onImported={reload} onFailed={setImportProblem} />
        <button type="button" class="btn" onClick={reload} aria-label="Refresh" title="Refresh">
          <Icon name="refresh" />
        </button>
        <Show when={!readOnly()}>
          <button type="button" class="btn btn-primary" onClick={() => open('new')}>
            <Icon name="plus" /> New record
          </button>
        </Show>
      </div>
      <Show when={importProblem()}>
        {(p) => <ImportErrors problem={p()} onDismiss={() => setImportProblem(null)} />}
      </Show>
      <FilterNotices collection={props.collection} filter={q().filter} searching={searching()} error={filterError()} />
      <Show when={showHelp()}>
        <FilterHelp collection={props.collection} onPick={(ex) => (setDraft(ex), applyFilter(ex))} />
      </Show>
      <Show when={data.error && !filterError()}>
        <p class="alert alert-error" role="alert">
          {unreachable() ? `${messageOf(data.error)}${current() ? ' The rows below are as last loaded.' : ''}` : `Could not load records: ${messageOf(data.error)}`}
        </p>
      </Show>
      <Show when={!readOnly()}>
        <BulkActions collection={props.collection} selection={selection} onDeleted={(ids) => (selection.refresh([], ids), reload())} />
      </Show>

      <div class="table-wrap" classList={{ loading: data.loading }}>
        <RecordsTable
          rows={rows()}
          columns={columns()}
          sort={q().sort}
          selection={selection}
          findCollection={app.findCollection}
          fileUrl={app.api.fileUrl}
          onSort={toggleSort}
          onOpen={open}
        />
        <Show when={current()?.items.length === 0}>
          <NoRecords filter={q().filter} searching={searching()} readOnly={readOnly()} onClear={() => (setDraft(''), applyFilter(''))} onNew={() => open('new')} />
        </Show>
        <Show when={data.loading && !current()}>
          <div class="empty"><div class="spinner" /></div>
        </Show>
      </div>
      <Show when={current()}>
        {(d) => (
          <Pager
            page={d().page}
            perPage={q().perPage}
            totalItems={d().totalItems}
            totalPages={d().totalPages}
            onPage={(page) => list.set({ page })}
            onPerPage={(perPage) => list.set({ perPage })}
          />
        )}
      </Show>

      {/* keyed: the panel gets the record itself, so closing it never reads a stale accessor. */}
      <Show when={record.editing()} keyed>
        {(rec) => <OpenRecordPanel collection={props.collection} record={rec} open={record} readOnly={readOnly()} onSaved={reload} />}
      </Show>
    </section>
  );
}

/** What the filter box's text does: a search across the text fields, or a filter the server refused. */
function FilterNotices(props: { collection: Collection; filter: string; searching: boolean; error: ApiError | undefined }): JSX.Element {
  return (
    <>
      <Show when={props.searching}>
        <p class="search-note muted">
          Searching {searchableFields(props.collection).join(', ')} for “{props.filter}”. A filter such as{' '}
          <code>{searchableFields(props.collection).find((f) => f !== 'id') ?? 'id'} ~ "{props.filter}"</code> narrows it.
        </p>
      </Show>
      <Show when={props.error}>
        {(err) => (
          <p class="alert alert-error filter-error" role="alert">
            <b>Invalid filter.</b> {filterDetail(err())}
          </p>
        )}
      </Show>
    </>
  );
}

/** An empty page: nothing matches the filter (with a way out), or no records yet (with a way in). */
function NoRecords(props: { filter: string; searching: boolean; readOnly: boolean; onClear(): void; onNew(): void }): JSX.Element {
  return (
    <div class="empty">
      <Show
        when={props.filter === ''}
        fallback={
          <>
            <p>{props.searching ? `No records contain “${props.filter}”.` : 'No records match this filter.'}</p>
            <button type="button" class="btn" onClick={() => props.onClear()}>Clear filter</button>
          </>
        }
      >
        <p>No records yet.</p>
        <Show when={!props.readOnly}>
          <button type="button" class="btn btn-primary" onClick={() => props.onNew()}>
            <Icon name="plus" /> Add the first record
          </button>
        </Show>
      </Show>
    </div>
  );
}

/** The open record's panel: the edit form, or a view collection's read-only one (no new records there). */
function OpenRecordPanel(props: { collection: Collection; record: RecordModel | 'new'; open: OpenRecord; readOnly: boolean; onSaved(): void }): JSX.Element {
  // Rendered once per record (a keyed <Show>), so the record is read once.
  const rec = untrack(() => props.record);
  return (
    <Show when={!props.readOnly} fallback={rec === 'new' ? null : <ViewRecordPanel collection={props.collection} record={rec} onClose={props.open.close} />}>
      <RecordPanel
        collection={props.collection}
        record={rec === 'new' ? undefined : rec}
        initial={rec === 'new' ? (props.open.prefill() ?? undefined) : undefined}
        expand={expandOf(props.collection)}
        onClose={props.open.close}
        onSaved={(saved, keepOpen) => {
          if (keepOpen && saved) props.open.moveTo(saved.id);
          else props.open.close();
          props.onSaved();
        }}
        onDuplicate={props.open.duplicate}
      />
    </Show>
  );
}
