// Reading requests: list query parameters, and the RequestInfo rules see (bodies: body.ts).
import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { ApiError, badRequest } from '../errors.js';
import { setOwn } from '../core/own-keys.js';
import type { ListQuery } from '../core/records-read.js';
import type { AuthInfo, RequestInfo } from '../core/types.js';
import { clientKey } from '../core/scrypt-pool.js';

export const MAX_URL_LENGTH = 16 * 1024;
export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 1000;
/**
 * The last page a list may ask for: its offset, (page - 1) × perPage, stays a safe integer, which SQLite
 * takes as an integer (a larger one arrives as a float and fails with "datatype mismatch"). Any page past
 * the data answers empty with the real totals, as PocketBase does, so this one does too.
 */
export const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / MAX_PER_PAGE);

/** Per-request state set by the auth middleware. */
export interface RequestState {
  auth: AuthInfo | null;
  /** The token as presented in the Authorization header (returned again on refresh). */
  bearer: string | null;
  viaCookie: boolean;
}

const states = new WeakMap<H3Event, RequestState>();
export const setState = (event: H3Event, state: RequestState): void => void states.set(event, state);
export const stateOf = (event: H3Event): RequestState => states.get(event) ?? { auth: null, bearer: null, viaCookie: false };

export function param(event: H3Event, name: string): string {
  return getRouterParam(event, name, { decode: true }) ?? '';
}

export function queryOf(event: H3Event): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of event.url.searchParams) if (!Object.hasOwn(out, k)) setOwn(out, k, v);
  return out;
}

function intParam(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw badRequest(`Invalid ${name} parameter.`);
  return Number(raw);
}

function boolParam(raw: string | undefined): boolean {
  if (raw === undefined || raw === '') return false;
  if (/^(1|t|true)$/i.test(raw)) return true;
  if (/^(0|f|false)$/i.test(raw)) return false;
  throw badRequest('Invalid skipTotal parameter.');
}

export function listQuery(event: H3Event): ListQuery {
  const q = queryOf(event);
  const page = intParam(q.page, 'page');
  const perPage = intParam(q.perPage, 'perPage');
  return {
    page: page === undefined || page < 1 ? 1 : Math.min(page, MAX_PAGE),
    perPage: perPage === undefined || perPage <= 0 ? DEFAULT_PER_PAGE : Math.min(perPage, MAX_PER_PAGE),
    sort: q.sort,
    filter: q.filter,
    skipTotal: boolParam(q.skipTotal),
  };
}

function snakeHeader(name: string): string {
  return name.toLowerCase().replace(/-/g, '_');
}

export function requestInfo(event: H3Event, body: Record<string, unknown> = {}): RequestInfo {
  const headers: Record<string, string> = {};
  event.req.headers.forEach((value, key) => {
    if (key === 'authorization' || key === 'cookie') return; // credentials stay out of rules
    setOwn(headers, snakeHeader(key), value);
  });
  return {
    auth: stateOf(event).auth,
    method: event.req.method.toUpperCase(),
    context: 'default',
    body,
    query: queryOf(event),
    headers,
    client: clientKey(event.runtime?.node?.req.socket.remoteAddress),
  };
}

export function assertUrlLength(event: H3Event): void {
  if (event.req.url.length > MAX_URL_LENGTH) throw new ApiError(414, 'Request URL too long.');
}
