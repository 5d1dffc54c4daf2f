// Reading requests: bodies under a size limit, list query parameters, and the RequestInfo rules see.
import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { ApiError, badRequest, tooLarge } from '../errors.js';
import type { ListQuery } from '../core/records-read.js';
import type { AuthInfo, RequestInfo } from '../core/types.js';

export const MAX_BODY_BYTES = 32 * 1024 * 1024;
export const MAX_URL_LENGTH = 16 * 1024;
export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 1000;

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

/**
 * Reads and drops what is left of a refused body, as node:http does for a body nobody read, so the 413
 * reaches the client whole. Not reader.cancel(): that destroys the socket under the response on its
 * way out, and listhen's http-shutdown then throws in the response's 'finish' (an uncaught exception
 * that stopped the server); nor closing the connection, which resets it while the client still sends
 * and can lose the answer.
 */
function discardRest(event: H3Event): void {
  const req = event.runtime?.node?.req;
  if (!req) return;
  req.removeAllListeners('data');
  req.on('data', () => undefined);
  req.resume();
}

/** The raw body, refused with a 413 as soon as it passes `limit` (declared or streamed, chunked included). */
async function readLimited(event: H3Event, limit: number): Promise<Buffer> {
  const declared = event.req.headers.get('content-length');
  if (Number(declared ?? '0') > limit) throw tooLarge();
  // A body of declared length (node's parser delivers exactly that many bytes) is read straight from
  // node's request: the web stream srvx would wrap it in cost a tenth of a durable create's rate.
  const node = event.runtime?.node?.req;
  if (node !== undefined && declared !== null && event.req.headers.get('transfer-encoding') === null) {
    const chunks: Buffer[] = [];
    for await (const chunk of node) chunks.push(chunk as Buffer);
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }
  const stream = event.req.body;
  if (!stream) return Buffer.alloc(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.releaseLock();
      discardRest(event);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Multipart and urlencoded values are type-inferred as PocketBase does (semantics.md §3.1). */
function inferValue(v: string): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v !== '' && /^-?\d+(\.\d+)?$/.test(v) && String(Number(v)) === v) return Number(v);
  return v;
}

function formToObject(entries: Iterable<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, raw] of entries) {
    if (typeof raw !== 'string') continue; // file uploads are not supported
    if (k === '@jsonPayload') {
      try {
        const extra: unknown = JSON.parse(raw);
        if (extra && typeof extra === 'object' && !Array.isArray(extra)) Object.assign(out, extra);
      } catch {
        throw badRequest('Failed to load the submitted data due to invalid formatting.');
      }
      continue;
    }
    const v = inferValue(raw);
    if (k in out) out[k] = Array.isArray(out[k]) ? [...(out[k] as unknown[]), v] : [out[k], v];
    else out[k] = v;
  }
  return out;
}

/** The request body as an object; `{}` when empty. */
export async function readBodyObject(event: H3Event, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const type = (event.req.headers.get('content-type') ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) {
    // read under the limit first: formData() alone would buffer a chunked upload of any size
    const bytes = await readLimited(event, limit);
    const form = await new Response(new Uint8Array(bytes), { headers: { 'content-type': type } }).formData().catch(() => {
      throw badRequest('Failed to load the submitted data due to invalid formatting.');
    });
    return formToObject(form.entries());
  }
  const text = (await readLimited(event, limit)).toString('utf8');
  if (text.trim() === '') return {};
  if (type.startsWith('application/x-www-form-urlencoded')) return formToObject(new URLSearchParams(text).entries());
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('Failed to load the submitted data due to invalid formatting.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest('Failed to load the submitted data due to invalid formatting.');
  }
  return parsed as Record<string, unknown>;
}

export function queryOf(event: H3Event): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of event.url.searchParams) if (!(k in out)) out[k] = v;
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
    page: page === undefined || page < 1 ? 1 : page,
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
    headers[snakeHeader(key)] = value;
  });
  return {
    auth: stateOf(event).auth,
    method: event.req.method.toUpperCase(),
    context: 'default',
    body,
    query: queryOf(event),
    headers,
  };
}

export function assertUrlLength(event: H3Event): void {
  if (event.req.url.length > MAX_URL_LENGTH) throw new ApiError(414, 'Request URL too long.');
}
