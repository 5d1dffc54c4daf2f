// Reading requests: the caller's state set by the auth middleware, route and query parameters, and the
// request context core works with (bodies: body.ts).
import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { ApiError, notFound } from '../errors.js';
import type { Core } from '../core/index.js';
import { setOwn } from '../core/own-keys.js';
import type { ListContext, RequestContext, RequestInput } from '../core/request-context.js';
import { clientKey, realAddress, type TrustedProxy } from './client-key.js';
import type { AuthInfo } from '../model/types.js';

export const MAX_URL_LENGTH = 16 * 1024;

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

/**
 * A route parameter, decoded. One holding U+0000 names nothing that can exist (ids, collection names
 * and file names never hold it): 404 as any unknown one, on both engines, before it reaches a
 * statement (PostgreSQL's text cannot take it).
 */
export function param(event: H3Event, name: string): string {
  const value = getRouterParam(event, name, { decode: true }) ?? '';
  if (value.includes('\u0000')) throw notFound();
  return value;
}

function queryOf(event: H3Event): Record<string, string> {
  return queryFrom(event.url.searchParams);
}

/** A query's parameters as core reads them: the first value of each name. */
export function queryFrom(params: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) if (!Object.hasOwn(out, k)) setOwn(out, k, v);
  return out;
}

/** The request in plain values for core (a batch builds its sub-requests' contexts from it). */
export function inputOf(event: H3Event, body?: Record<string, unknown>): RequestInput {
  return {
    auth: stateOf(event).auth,
    method: event.req.method,
    query: queryOf(event),
    headers: event.req.headers,
    body,
    client: clientOf(event),
  };
}

const clients = new WeakMap<H3Event, string>();
const realAddresses = new WeakMap<H3Event, string>();

/** Behind a trusted proxy (settings `trustedProxy`, read once per request by app.ts, before the caller): the client its header names. */
export function trustProxy(event: H3Event, proxy: TrustedProxy): void {
  const req = event.runtime?.node?.req;
  const address = realAddress(req?.socket.remoteAddress, req?.rawHeaders ?? [], proxy);
  if (address !== undefined) realAddresses.set(event, address);
  clients.set(event, clientKey(address));
}

/** The client's address as PocketBase's RealIP: behind a trusted proxy the one its header names, else the socket's. */
export function realIpOf(event: H3Event): string {
  return realAddresses.get(event) ?? event.runtime?.node?.req.socket.remoteAddress ?? '';
}

/**
 * Who the request's shared costs are charged to (hashes, sign-in checks, account-mail's and the
 * settings' rate limits, realtime streams): its client address's key (IPv6 by its /64), behind a
 * trusted proxy the address the proxy names.
 */
export function clientOf(event: H3Event): string {
  return clients.get(event) ?? clientKey(event.runtime?.node?.req.socket.remoteAddress);
}

/** The request as core sees it (who is asking, what rules read, `expand` and `fields`), built once per request. */
export function contextOf(event: H3Event, core: Core, body?: Record<string, unknown>): RequestContext {
  return core.context(inputOf(event, body));
}

/** The same for a list: also its page, perPage, sort, filter and skipTotal. */
export function listContextOf(event: H3Event, core: Core): ListContext {
  return core.listContext(inputOf(event));
}

export function assertUrlLength(event: H3Event): void {
  if (event.req.url.length > MAX_URL_LENGTH) throw new ApiError(414, 'Request URL too long.');
}
