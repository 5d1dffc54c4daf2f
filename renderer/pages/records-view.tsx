// The records of one collection: filter (with completion), the grid, paging, bulk actions, and the side
// panel to create/edit. Filter, sort, page, page size and the open record live in the URL
// (lib/list-state.ts); the grid's columns are remembered per collection (lib/column-prefs.ts).
import { createEffect, createMemo, createResource, createSignal, on, Show, type JSX } from 'solid-js';
import type { Collection, Page, RecordModel } from '../api.js';
import { ApiError, messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { useRouter } from '../router.js';
import { filterOfBox, isFilterExpression, isInternalField, searchableFields } from '../lib/format.js';
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

type ListPage = Page<RecordModel>;

/** The server's detail (data.*.message) when it gave one, else its message. */
function filterDetail(err: ApiError): string {
  const details = Object.values(err.data)
    .map((d) => (typeof d.message === 'string' ? d.message : ''))
    .filter((m) => m !== '');
  return details.length > 0 ? details.join(' ') : err.message;
}

/**
 * The page's records, keeping the previous object of every record that came back unchanged: rows are
 * keyed by object, so an unchanged record keeps its row (and focus) across reloads.
 */
function stableRows() {
  let known = new Map<string, { json: string; record: RecordModel }>();
  return (items: RecordModel[]): RecordModel[] => {
    const next = new Map<string, { json: string; record: RecordModel }>();
    const out = items.map((r) => {
      const json = JSON.stringify(r);
      const old = known.get(r.id);
      const record = old && old.json === json ? old.record : r;
      next.set(r.id, { json, record });
      return record;
    });
    known = next;
    return out;
  };
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
  const [version, setVersion] = createSignal(0);
  const selection = createSelection();
  const [importProblem, setImportProblem] = createSignal<ImportProblem | null>(null);

  const fields = createMemo(() => props.collection.fields.filter((f) => f.type !== 'password' && !isInternalField(f, props.collection)));
  const [hidden, setHidden] = createSignal(loadHiddenColumns(props.collection.id));
  const columns = createMemo(() => fields().filter((f) => !hidden().includes(f.id)));
  const expand = () => props.collection.fields.filter((f) => f.type === 'relation').map((f) => f.name).join(',');

  // The URL keeps what was typed; plain words are sent as a search across the text fields.
  const sentFilter = () => filterOfBox(q().filter, props.collection);
  const searching = () => q().filter !== '' && !isFilterExpression(q().filter);
  const [history, setHistory] = createSignal(loadFilterHistory(props.collection.id));
  const [data] = createResource(
    () => ({ c: props.collection.name, page: q().page, perPage: q().perPage, sort: q().sort, filter: sentFilter(), v: version() }),
    (p) => app.api.listRecords(p.c, { page: p.page, perPage: p.perPage, sort: p.sort, filter: p.filter, expand: expand() }),
  );
  // Reading an errored resource throws, so the table reads the last good page through this guard; with
  // no answer at all (server unreachable) the rows already shown stay, under a notice, instead of emptying.
  const unreachable = () => data.error instanceof ApiError && data.error.status === 0;
  const current = createMemo<ListPage | undefined>((prev) => (data.error ? (unreachable() ? prev : undefined) : (data.latest ?? prev)));
  // The collection is gone on the server (deleted or restored away by another client): the collections
  // are read again, so the page says "not found" and the sidebar drops it, instead of the server's words.
  let recheckedGone = false;
  createEffect(() => {
    if (data.error instanceof ApiError && data.error.status === 404 && !recheckedGone) {
      recheckedGone = true;
      void app.reloadCollections();
    }
  });
  // A filter the server took goes into the box's history (one that it refused does not).
  createEffect(on(current, (d) => {
    const f = q().filter;
    if (d && f !== '' && !data.error && history()[0] !== f) setHistory(rememberFilter(props.collection.id, f));
  }));
  const keep = stableRows();
  const rows = createMemo(() => keep(current()?.items ?? []));
  createEffect(() => selection.refresh(rows()));
  // A page past the end (after deletes, or an old link) moves to the last page there is.
  createEffect(() => {
    const d = current();
    if (d && d.items.length === 0 && d.page > 1 && d.totalPages > 0) list.set({ page: d.totalPages });
  });

  // The open record: the row's own object when it is on this page, else fetched by id (a link).
  const openId = () => q().record;
  const [fetched] = createResource(
    () => {
      const id = openId();
      return id && id !== 'new' && !rows().some((r) => r.id === id) && !data.loading ? id : false;
    },
    (id) => app.api.getRecord(props.collection.name, id, expand()),
  );
  createEffect(() => {
    if (fetched.error) {
      toast(`Record ${openId()} was not found: ${messageOf(fetched.error)}`, 'error');
      list.set({ record: null });
    }
  });
  const idOf = (e: RecordModel | 'new' | null) => (e === null || e === 'new' ? e : e.id);
  // Compared by id: a reload that brings a newer copy of the open record does not reopen the panel.
  const editing = createMemo<RecordModel | 'new' | null>(
    () => {
      const id = openId();
      if (!id) return null;
      if (id === 'new') return 'new';
      return rows().find((r) => r.id === id) ?? (fetched.error || fetched.loading ? null : (fetched() ?? null));
    },
    null,
    { equals: (a, b) => idOf(a) === idOf(b) },
  );

  const applyFilter = (text = draft()) => list.set({ filter: text.trim() });
  const toggleSort = (key: string) => list.set({ sort: q().sort === key ? `-${key}` : q().sort === `-${key}` ? '' : key });
  const reload = () => setVersion(version() + 1);
  const filterError = () => (data.error instanceof ApiError && data.error.status === 400 && q().filter !== '' ? data.error : undefined);
  // Duplicate's values for the next new-record panel; any other way to a new record starts empty.
  const [prefill, setPrefill] = createSignal<Record<string, unknown> | null>(null);
  const open = (r: RecordModel | 'new') => (setPrefill(null), list.set({ record: r === 'new' ? 'new' : r.id }, { push: true }));
  const close = () => (setPrefill(null), list.set({ record: null }));
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
      <Show when={searching()}>
        <p class="search-note muted">
          Searching {searchableFields(props.collection).join(', ')} for “{q().filter}”. A filter such as{' '}
          <code>{searchableFields(props.collection).find((f) => f !== 'id') ?? 'id'} ~ "{q().filter}"</code> narrows it.
        </p>
      </Show>
      <Show when={filterError()}>
        {(err) => (
          <p class="alert alert-error filter-error" role="alert">
            <b>Invalid filter.</b> {filterDetail(err())}
          </p>
        )}
      </Show>
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
          <div class="empty">
            <Show
              when={q().filter === ''}
              fallback={
                <>
                  <p>{searching() ? `No records contain “${q().filter}”.` : 'No records match this filter.'}</p>
                  <button type="button" class="btn" onClick={() => (setDraft(''), applyFilter(''))}>Clear filter</button>
                </>
              }
            >
              <p>No records yet.</p>
              <Show when={!readOnly()}>
                <button type="button" class="btn btn-primary" onClick={() => open('new')}>
                  <Icon name="plus" /> Add the first record
                </button>
              </Show>
            </Show>
          </div>
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
      <Show when={editing()} keyed>
        {(rec) => readOnly() ? (rec === 'new' ? null : <ViewRecordPanel collection={props.collection} record={rec} onClose={close} />) : (
          <RecordPanel
            collection={props.collection}
            record={rec === 'new' ? undefined : rec}
            initial={rec === 'new' ? (prefill() ?? undefined) : undefined}
            expand={expand()}
            onClose={close}
            onSaved={(saved, keepOpen) => {
              // Save and continue: a new record's panel moves to the record it created.
              if (keepOpen && saved) list.set({ record: saved.id });
              else close();
              reload();
            }}
            onDuplicate={(values) => {
              setPrefill(values);
              list.set({ record: 'new' }, { push: true });
            }}
          />
        )}
      </Show>
    </section>
  );
}
