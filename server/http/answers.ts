// What every answer of the app gets, wherever it is made (app.ts's h3 hooks, fast-reads.ts): the CORS
// headers, the one mapping of errors to the spec's envelope (an ApiError its own; anything else a
// generic status, logged), and the request handed to the logs.
import { HTTPError } from 'h3';
import { ApiError } from '../errors.js';
import { storeFailure } from '../core/store-failures.js';
import type { Logs } from '../logs/index.js';
import type { AuthInfo } from '../model/types.js';
import { BodyNotReceived } from './body.js';
import { envelopeJson, GENERIC_MESSAGES } from './envelope.js';

/**
 * Requests whose success is not logged, as PocketBase's SkipSuccessActivityLog: the logs' own reads,
 * the realtime connection (its subscriptions are logged), OAuth2 redirects.
 */
const UNLOGGED_SUCCESS = /^(?:GET \/api\/logs(?:\/|$)|GET \/api\/realtime$|(?:GET|POST) \/api\/oauth2-redirect$)/;

/** What a failed request's log says of its error (message, the envelope's data). */
export interface Failure { error: string; details?: unknown }

export const CORS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, POST, PATCH, PUT, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, accept, x-requested-with',
  'access-control-max-age': '86400',
};

/** An error envelope's headers: CORS with them (an error may be answered before any other header is set). */
export const ENVELOPE_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json; charset=utf-8', ...CORS };

export function envelope(status: number, json: string): Response {
  return new Response(json, { status, headers: ENVELOPE_HEADERS });
}

/** An error thrown outside h3 as h3 hands it to onError: a foreign error wrapped in an unhandled HTTPError. */
export function asH3Error(error: unknown): unknown {
  if (HTTPError.isError(error)) return error;
  const wrapped = error instanceof Error ? new HTTPError(error) : new HTTPError({ status: 500 });
  const writable = wrapped as { cause?: unknown; unhandled?: boolean };
  if (!(error instanceof Error)) writable.cause = error;
  writable.unhandled = true;
  return wrapped;
}

/** A failed request's answer: its status, its envelope's JSON, and what its log says of the error. */
export interface FailedAnswer { status: number; json: string; failure: Failure }

/**
 * What a request that failed with `error` is answered: an ApiError its envelope; h3's own errors their
 * generic message; anything else a 500 (logged with its stack), the store's full database a 507, a
 * data folder that cannot be written a 503. The one mapping of errors (h3's onError and fast-reads.ts).
 */
export function failed(error: unknown, method: string, path: string, log: (entry: Record<string, unknown>) => void): FailedAnswer {
  const api = findApiError(error);
  const failure: Failure = api ? { error: api.message, details: api.data } : { error: errorMessage((error as { cause?: unknown }).cause ?? error) };
  const answer = (status: number, message: string, data: object = {}): FailedAnswer => ({ status, json: envelopeJson(status, message, data), failure });
  if (api instanceof BodyNotReceived) log({ level: 'warn', method, path, error: 'client closed the connection before its body was received' });
  if (api) return answer(api.status, api.message, api.data);
  const status = error instanceof HTTPError ? error.status : 500;
  if (status >= 500 || !(error instanceof HTTPError) || error.unhandled) {
    const cause = (error as { cause?: unknown }).cause ?? error;
    // the database reached its size cap (the desktop's store option maxDatabaseBytes): core/store-failures.ts reads it
    if (storeFailure(cause)?.kind === 'full') {
      log({ level: 'warn', method, path, error: 'the database has reached its size limit' });
      return answer(507, 'The database has reached its size limit. Nothing was changed; delete records to make room.');
    }
    log({ level: 'error', method, path, error: cause instanceof Error ? (cause.stack ?? cause.message) : String(cause) });
    const code = (cause as { code?: unknown }).code;
    // EFBIG: a file-size limit (ulimit -f, some file systems' largest file) refuses the write like a full disk
    if (code === 'ENOSPC' || code === 'EROFS' || code === 'EACCES' || code === 'EPERM' || code === 'EIO' || code === 'EDQUOT' || code === 'EFBIG') {
      return answer(503, 'The data folder cannot be written to right now (disk full or read-only). Nothing was changed.');
    }
    return answer(500, 'Something went wrong while processing your request.');
  }
  return answer(status, GENERIC_MESSAGES[status] ?? GENERIC_MESSAGES[400]);
}

/** h3 wraps foreign errors, so look through `cause` for ours. */
function findCause<T>(error: unknown, type: new (...args: never[]) => T): T | null {
  let e: unknown = error;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof type) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

const findApiError = (error: unknown): ApiError | null => findCause(error, ApiError);

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What the logs are told of one answered request (logAnswered). */
export interface AnsweredRequest {
  method: string;
  path: string;
  /** The query with its `?`, or ''. */
  search: string;
  status: number;
  /** performance.now() when the request came in. */
  t0: number | undefined;
  auth: AuthInfo | null;
  userAgent: string;
  referer: string;
  /** The client's address as PocketBase's RealIP (request.ts realIpOf), and the socket's. */
  ip: string;
  remoteIp: string;
}

/** One answered request to the logs: skipped as PocketBase skips it (UNLOGGED_SUCCESS), else one push. */
export function logAnswered(logs: Logs, r: AnsweredRequest, failure: Failure | undefined): void {
  const { method, path, auth } = r;
  if (failure === undefined && UNLOGGED_PREFIX.test(path) && UNLOGGED_SUCCESS.test(`${method} ${path}`)) return;
  const facts = {
    method,
    url: path + r.search,
    status: r.status,
    execTime: r.t0 === undefined ? 0 : Math.round((performance.now() - r.t0) * 1000) / 1000,
    userAgent: r.userAgent,
    referer: r.referer,
    auth: auth?.collection.name ?? '',
    authId: auth === null ? '' : String(auth.record.id),
    ip: unmapped(r.ip),
    remoteIp: unmapped(r.remoteIp),
  };
  logs.request(failure === undefined ? facts : { ...facts, ...failure });
}

/** The paths UNLOGGED_SUCCESS can match at all (tested first: most requests are none of them). */
const UNLOGGED_PREFIX = /^\/api\/(?:logs|realtime|oauth2-redirect)/;

const unmapped = (address: string): string => (address.startsWith('::ffff:') ? address.slice(7) : address);
