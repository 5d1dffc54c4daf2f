// The HTTP cases of the bench, as requests, and the capture of Deskbase's real answers to them that
// the ceiling server then replays from memory.
import { FILTER_WORD, postContent, prng } from './data.js';
import type { CapturedResponse, SeedInfo } from './protocol.js';
import { routeKey } from './protocol.js';

export type CaseId =
  | 'view' | 'list' | 'listSkipTotal' | 'listFilter' | 'listExpand' | 'listExpandMulti' | 'listSortTitle' | 'listDeepPage'
  | 'create' | 'signIn' | 'mixed' | 'viewComputed' | 'listComputed';

export interface HttpCase {
  id: CaseId;
  label: string;
  method: 'GET' | 'POST';
  paths: string[];
  /** Each path's method when they differ (the mixed case). */
  methods?: ('GET' | 'POST')[];
  bodies?: string[];
  headers?: Record<string, string>;
  /**
   * Every request carries a header of its own (`x-bench-request: <n>`), so no answer is kept between
   * requests (http/read-cache.ts keys answers by the headers a rule can read): each is read, checked
   * and serialised again, as when the data changes between reads.
   */
  computed?: boolean;
}

const RECORDS = '/api/collections/posts/records';

export const listPath = (query: Record<string, string>): string => `${RECORDS}?${new URLSearchParams({ page: '1', perPage: '30', ...query })}`;

/** A page nine tenths of the way through the default order: page 3,000 of 100,000 posts. */
export const deepPage = (posts: number): number => Math.max(1, Math.round((0.9 * posts) / 30));

/** The body of a create as a signed-in user: a ~500-character post by that user. */
export function createBody(info: SeedInfo): string {
  return JSON.stringify({ ...postContent(prng(7)), author: info.userIds[0] });
}

export function httpCases(info: SeedInfo): Record<CaseId, HttpCase> {
  return {
    view: { id: 'view', label: 'view one record by id (guest), answers kept between requests', method: 'GET', paths: info.viewIds.map((id) => `${RECORDS}/${id}`) },
    list: { id: 'list', label: 'list 30 with totals, answers kept', method: 'GET', paths: [listPath({})] },
    viewComputed: {
      id: 'viewComputed', label: 'view one record by id (guest), every answer computed', method: 'GET',
      paths: info.viewIds.map((id) => `${RECORDS}/${id}`), computed: true,
    },
    listComputed: { id: 'listComputed', label: 'list 30 with totals, every answer computed', method: 'GET', paths: [listPath({})], computed: true },
    listSkipTotal: { id: 'listSkipTotal', label: 'list 30, skipTotal', method: 'GET', paths: [listPath({ skipTotal: '1' })], computed: true },
    listFilter: { id: 'listFilter', label: `list 30, filter title ~ '${FILTER_WORD}'`, method: 'GET', paths: [listPath({ filter: `title ~ '${FILTER_WORD}'` })], computed: true },
    listExpand: { id: 'listExpand', label: 'list 30, expand=author', method: 'GET', paths: [listPath({ expand: 'author' })], computed: true },
    listExpandMulti: {
      id: 'listExpandMulti', label: 'list 30, expand=coauthors (multiple relation)', method: 'GET', paths: [listPath({ expand: 'coauthors' })], computed: true,
    },
    listSortTitle: { id: 'listSortTitle', label: 'list 30, sort=title (unindexed text)', method: 'GET', paths: [listPath({ sort: 'title' })], computed: true },
    listDeepPage: {
      id: 'listDeepPage', label: `list 30, page ${deepPage(info.postsCount).toLocaleString('en')} (default sort)`, method: 'GET',
      paths: [listPath({ page: String(deepPage(info.postsCount)) })], computed: true,
    },
    create: {
      id: 'create', label: 'create (signed-in user, durable)', method: 'POST', paths: [RECORDS],
      bodies: [createBody(info)], headers: { authorization: `Bearer ${info.userToken}` },
    },
    mixed: mixedCase(info),
    signIn: {
      id: 'signIn', label: 'auth-with-password', method: 'POST', paths: ['/api/collections/users/auth-with-password'],
      bodies: info.userEmails.map((identity) => JSON.stringify({ identity, password: info.userPassword })),
    },
  };
}

/**
 * Reads and writes at once, as a signed-in user: nine views by id, then a durable create, in turn.
 * Every create ends a write transaction, so the answers kept between requests (http/read-cache.ts)
 * are dropped ten times a second or more: what the cache costs and gives when writes are frequent.
 */
function mixedCase(info: SeedInfo): HttpCase {
  const paths: string[] = [];
  const methods: ('GET' | 'POST')[] = [];
  info.viewIds.forEach((id, i) => {
    paths.push(`${RECORDS}/${id}`);
    methods.push('GET');
    if (i % 9 === 8) {
      paths.push(RECORDS);
      methods.push('POST');
    }
  });
  return {
    id: 'mixed', label: 'view by id, a create after every 9 (signed-in user)', method: 'GET', paths, methods,
    bodies: [createBody(info)], headers: { authorization: `Bearer ${info.userToken}` },
  };
}

/** Headers a server sets per connection or per body; the ceiling's node:http sets its own. */
const HOP_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

async function capture(baseUrl: string, c: HttpCase, path: string, body: string | undefined): Promise<CapturedResponse> {
  const headers: Record<string, string> = { ...c.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, { method: c.method, headers, body });
  const text = await res.text();
  if (!res.ok) throw new Error(`capturing ${c.method} ${path}: ${res.status} ${text}`);
  const kept: Record<string, string> = {};
  res.headers.forEach((value, key) => {
    if (!HOP_HEADERS.has(key)) kept[key] = value;
  });
  return { status: res.status, headers: kept, body: text };
}

/** Deskbase's answer to every distinct request of the cases, keyed for the ceiling server. */
export async function captureRoutes(baseUrl: string, cases: HttpCase[]): Promise<Record<string, CapturedResponse>> {
  const routes: Record<string, CapturedResponse> = {};
  for (const c of cases) {
    for (const [i, path] of c.paths.entries()) {
      const method = c.methods?.[i] ?? c.method;
      routes[routeKey(method, path)] ??= await capture(baseUrl, { ...c, method }, path, method === 'POST' ? c.bodies?.[0] : undefined);
    }
  }
  return routes;
}
