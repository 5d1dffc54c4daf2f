// The records page's state, apart from its markup (records-view.tsx): the page of records the URL asks
// for (lib/list-state.ts), kept steady across reloads and errors, and the record open in the panel.
import { createEffect, createMemo, createResource, createSignal, type Accessor } from 'solid-js';
import type { Collection, Page, RecordModel } from '../api.js';
import { ApiError, messageOf } from '../api.js';
import type { AppCtx } from '../app-context.js';
import { filterOfBox, isFilterExpression } from '../lib/format.js';
import type { ListState } from '../lib/list-state.js';

type ListPage = Page<RecordModel>;

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

/** The relation fields a list and a panel expand. */
export const expandOf = (c: Collection) => c.fields.filter((f) => f.type === 'relation').map((f) => f.name).join(',');

/** The page of records the list state asks for, from `GET /api/collections/{c}/records`. */
export function createRecordsPage(app: AppCtx, collection: Accessor<Collection>, list: ListState) {
  const q = () => list.query();
  const [version, setVersion] = createSignal(0);
  // The URL keeps what was typed; plain words are sent as a search across the text fields.
  const sentFilter = () => filterOfBox(q().filter, collection());
  const searching = () => q().filter !== '' && !isFilterExpression(q().filter);
  const [data] = createResource(
    () => ({ c: collection().name, page: q().page, perPage: q().perPage, sort: q().sort, filter: sentFilter(), v: version() }),
    (p) => app.api.listRecords(p.c, { page: p.page, perPage: p.perPage, sort: p.sort, filter: p.filter, expand: expandOf(collection()) }),
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
  const keep = stableRows();
  const rows = createMemo(() => keep(current()?.items ?? []));
  // A page past the end (after deletes, or an old link) moves to the last page there is.
  createEffect(() => {
    const d = current();
    if (d && d.items.length === 0 && d.page > 1 && d.totalPages > 0) list.set({ page: d.totalPages });
  });
  const filterError = () => (data.error instanceof ApiError && data.error.status === 400 && q().filter !== '' ? data.error : undefined);
  return { data, current, rows, unreachable, filterError, sentFilter, searching, reload: () => setVersion(version() + 1) };
}

export type RecordsPage = ReturnType<typeof createRecordsPage>;

/**
 * The record open in the panel, from the URL's `record`: the row's own object when it is on this page,
 * else fetched by id (a link); 'new' for the create form, with Duplicate's values when it came from one.
 */
export function createOpenRecord(app: AppCtx, collection: Accessor<Collection>, list: ListState, page: RecordsPage, toast: (message: string, kind: 'error') => void) {
  const openId = () => list.query().record;
  const [fetched] = createResource(
    () => {
      const id = openId();
      return id && id !== 'new' && !page.rows().some((r) => r.id === id) && !page.data.loading ? id : false;
    },
    (id) => app.api.getRecord(collection().name, id, expandOf(collection())),
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
      return page.rows().find((r) => r.id === id) ?? (fetched.error || fetched.loading ? null : (fetched() ?? null));
    },
    null,
    { equals: (a, b) => idOf(a) === idOf(b) },
  );
  // Duplicate's values for the next new-record panel; any other way to a new record starts empty.
  const [prefill, setPrefill] = createSignal<Record<string, unknown> | null>(null);
  return {
    editing,
    prefill,
    open: (r: RecordModel | 'new') => (setPrefill(null), list.set({ record: r === 'new' ? 'new' : r.id }, { push: true })),
    close: () => (setPrefill(null), list.set({ record: null })),
    /** Save and continue: a new record's panel moves to the record it created. */
    moveTo: (id: string) => list.set({ record: id }),
    duplicate: (values: Record<string, unknown>) => (setPrefill(values), list.set({ record: 'new' }, { push: true })),
  };
}

export type OpenRecord = ReturnType<typeof createOpenRecord>;
