// The one owner of a records list's state in the URL: filter, sort, page, page size and the open record
// live in the hash (`#/collections/posts?filter=…&sort=-views&page=3&record=abc`), so a reload, a link,
// Back and Forward all show the same list. The URL is the only place it lives: the sidebar's link opens
// a collection unfiltered (a filter kept out of sight made records look missing); the collection's own
// tabs carry the list's part of the URL along (`listParams`), so Settings and back finds it as it was.
import type { Route, Router } from '../router.js';
import { href } from '../router.js';

export interface ListQuery {
  filter: string;
  sort: string;
  page: number;
  perPage: number;
  /** The record open in the panel: its id, 'new' for the create form, or null. */
  record: string | null;
}

export const DEFAULT_PER_PAGE = 30;
const LIST_KEYS = ['filter', 'sort', 'page', 'perPage'] as const;

function positive(text: string | null, fallback: number): number {
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 ? n : fallback;
}

/** The query as the URL says it, with defaults for what it leaves out (`sort` absent: the default). */
export function readListQuery(query: URLSearchParams, defaultSort: string): ListQuery {
  return {
    filter: query.get('filter') ?? '',
    sort: query.has('sort') ? (query.get('sort') ?? '') : defaultSort,
    page: positive(query.get('page'), 1),
    perPage: Math.min(positive(query.get('perPage'), DEFAULT_PER_PAGE), 1000),
    record: query.get('record') || null,
  };
}

/** The URL query for a state: defaults are left out, so a plain list has a plain address. */
export function writeListQuery(q: ListQuery, defaultSort: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (q.filter !== '') out.filter = q.filter;
  if (q.sort !== defaultSort) out.sort = q.sort;
  if (q.page !== 1) out.page = String(q.page);
  if (q.perPage !== DEFAULT_PER_PAGE) out.perPage = String(q.perPage);
  if (q.record) out.record = q.record;
  return out;
}

export interface ListState {
  query(): ListQuery;
  /** Changes part of the state; a new filter, sort or page size goes back to page 1. */
  set(patch: Partial<ListQuery>, opts?: { push?: boolean }): void;
}

/** The list's part of a route's query (filter, sort, page, page size; not the open record). */
export function listParams(route: Route): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of LIST_KEYS) {
    const v = route.query.get(k);
    if (v !== null) out[k] = v;
  }
  return out;
}

/** The list state of `collection()` in the router's hash. */
export function createListState(router: Router, collection: () => string, defaultSort: () => string): ListState {
  const query = () => readListQuery(router.route().query, defaultSort());
  return {
    query,
    set(patch, opts) {
      const current = query();
      const resetsPage = ['filter', 'sort', 'perPage'].some((k) => k in patch && patch[k as keyof ListQuery] !== current[k as keyof ListQuery]);
      const next = { ...current, ...(resetsPage ? { page: 1 } : {}), ...patch };
      router.navigate(href(['collections', collection()], writeListQuery(next, defaultSort())), { replace: !opts?.push });
    },
  };
}
