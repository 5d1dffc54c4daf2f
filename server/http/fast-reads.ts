// The hottest reads served straight from node:http: `GET /api/collections/{collection}/records` and
// `GET /api/collections/{collection}/records/{id}`, without the h3 layers that do no work for them (the
// web Request and Headers wrappers, the middleware chain, the router, the web Response and its copy
// back to node). A view by id spent about a third of its CPU there.
//
// Every behaviour of the app is kept, by doing the same things through the same owners, or by leaving
// the request to the app (createNodeHandler) whenever one of them would differ:
//   - to the app: any other method or path, a path with a `%` escape (h3 decodes and canonicalises it),
//     an empty segment or trailing slash, a URL over MAX_URL_LENGTH (the app's 414), a Host the policy
//     refuses (the app's 421), a cookie (the session cookie is the app's: caller.ts), rate limits on or
//     a trusted proxy set (rate-limit.ts counts and names the client), a verbose app log;
//   - here: the bearer token resolved by the one session store (core.sessions.resolve), the request
//     context built by core from the same input the app builds (request.ts inputOf: query, headers
//     as the web Headers reads them, read here from node's raw headers: raw-headers.ts, the client's key), the read by core.records (rules, budgets,
//     hooks, expand, fields), the answer's JSON and headers as h3 writes them (CORS set by
//     createNodeHandler), errors answered by the app's one mapping (app.ts `failed`), and the request
//     logged as the app logs it (app.ts `logAnswered`).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from '../core/index.js';
import type { Logs } from '../logs/index.js';
import { bearerFrom } from './caller.js';
import { clientKey } from './client-key.js';
import { MAX_URL_LENGTH, queryFrom } from './request.js';
import { asH3Error, CORS, failed, logAnswered, type Failure } from './answers.js';
import type { AuthInfo } from '../model/types.js';
import type { ReadCache } from './read-cache.js';
import { RawHeaders } from './raw-headers.js';

export interface FastReadOptions {
  core: Core;
  /**
   * The app's other GET routes (h3 patterns): a path one of them matches is theirs, as in the app's
   * router, where a static segment wins over `:id` (`/records/export`).
   */
  routes: readonly string[];
  /** Answers kept between requests (read-cache.ts); null keeps none. */
  cache: ReadCache | null;
  allowHost: (host: string | null) => boolean;
  logs: Logs | undefined;
  log: (entry: Record<string, unknown>) => void;
}

export const PREFIX = '/api/collections/';
/** h3's header of a JSON answer (its prepareResponseBody). */
export const JSON_TYPE = 'application/json;charset=UTF-8';
export const ENVELOPE_TYPE = 'application/json; charset=utf-8';
/** A request target the URL parser keeps as it is: printable ASCII without `\\`, `#` or what it encodes (a path also without `%`). */
export const UNPLAIN = /[^\x21-\x7e]|[\\#"'<>`{}|^]/;
/** A collection name or record id as a path segment: no dot segments, nothing to decode. */
export const PLAIN_SEGMENT = /^[A-Za-z0-9_-]+$/;

/** Whether the request is served here (true: it is answered, now or later); false leaves it to the app. */
export type FastReads = (req: IncomingMessage, res: ServerResponse) => boolean;

export function fastReads(options: FastReadOptions): FastReads {
  const { core, allowHost, logs, log, cache } = options;
  // only patterns of five or six segments under /api/collections can take one of these paths
  const others = options.routes.map((r) => r.split('/')).filter((p) => (p.length === 5 || p.length === 6 || p.includes('**')) && p[1] === 'api' && (p[2] === 'collections' || p[2]?.startsWith(':') || p[2]?.includes('*')));
  const shadowed = (parts: string[]) => others.some((p) => matches(p, parts));
  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PREFIX) || url.length > MAX_URL_LENGTH) return false;
    // anything the URL parser would rewrite (escapes, dot segments, backslashes, characters it encodes)
    if (UNPLAIN.test(url)) return false;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path.includes('%')) return false;
    // ['', 'api', 'collections', name, 'records'(, id)]
    const parts = path.split('/');
    if (parts.length < 5 || parts.length > 6 || parts[4] !== 'records' || !PLAIN_SEGMENT.test(parts[3]) || (parts.length === 6 && !PLAIN_SEGMENT.test(parts[5]))) return false;
    // from the raw headers: node builds `req.headers` only when it is first read (a walk of every header)
    const headers = new RawHeaders(req.rawHeaders);
    if (headers.get('cookie') !== null || shadowed(parts)) return false;
    // a copy CACHE_MS old or older: the app's path, which reads the settings again first
    const settings = core.settings.ifFresh();
    if (settings === null || settings.rateLimits.enabled || settings.trustedProxy.headers.length > 0) return false;
    if (!allowHost(headers.get('host'))) return false;
    // as the app's: the whole read is its client's work (core.asClient), the client's key as rules see it
    const client = clientKey(req.socket.remoteAddress);
    void core.asClient(client, () => serve(req, res, headers, client, path, q < 0 || q === url.length - 1 ? '' : url.slice(q), parts[3], parts.length === 6 ? parts[5] : null));
    return true;
  };

  function serve(req: IncomingMessage, res: ServerResponse, headers: RawHeaders, client: string, path: string, search: string, name: string, id: string | null): Promise<void> {
    return answerDirect(req, res, 'GET', path, search, headers, logs, log, async (caller) => {
      // before anything is read: an answer is kept only if no write ended while it was made
      const version = cache?.now() ?? null;
      const bearer = bearerFrom(headers.get('authorization'));
      const auth = bearer === null ? null : (caller.auth = await core.sessions.resolve(bearer));
      const query = search === '' ? {} : queryFrom(new URLSearchParams(search));
      const key = version === null ? null : cache!.asked(path + search, query, auth, headers);
      let body: Buffer | string | undefined = key === null ? undefined : cache!.get(key);
      if (body === undefined) {
        const input = { auth, method: 'GET', query, headers, client };
        const answer = id === null ? await core.records.list(name, core.listContext(input)) : await core.records.view(name, id, core.context(input));
        body = JSON.stringify(answer);
        // kept as the UTF-8 it is written as; an answer not kept is written as text (node encodes it
        // straight into the socket's write, with the head: one write, no copy)
        if (key !== null) {
          body = Buffer.from(body);
          cache!.set(key, version!, body);
        }
      }
      return body;
    });
  }
}

/** Who a direct answer's caller turned out to be: set by its work once the token is resolved (the request log names it, a failure's too). */
export interface DirectCaller {
  auth: AuthInfo | null;
}

/**
 * A request served here answered as the app answers it: `work`'s JSON with 200, or the app's error
 * envelope (answers.ts `failed`); then logged as the app logs it (`logAnswered`). Writing the answer
 * failing (the socket is gone) ends or destroys the response, as srvx does.
 */
export async function answerDirect(
  req: IncomingMessage, res: ServerResponse, method: 'GET' | 'POST', path: string, search: string, headers: RawHeaders,
  logs: Logs | undefined, log: (entry: Record<string, unknown>) => void, work: (caller: DirectCaller) => Promise<Buffer | string>,
): Promise<void> {
  const t0 = performance.now();
  const caller: DirectCaller = { auth: null };
  let status = 200;
  let failure: Failure | undefined;
  try {
    try {
      send(res, 200, JSON_TYPE, await work(caller));
    } catch (error) {
      const f = failed(asH3Error(error), method, path, log);
      status = f.status;
      failure = f.failure;
      send(res, f.status, ENVELOPE_TYPE, f.json);
    }
    if (logs !== undefined) {
      logAnswered(logs, {
        method, path, search, status, t0, auth: caller.auth,
        userAgent: headers.get('user-agent') ?? '', referer: headers.get('referer') ?? '',
        ip: req.socket.remoteAddress ?? '', remoteIp: req.socket.remoteAddress ?? '',
      }, failure);
    }
  } catch (error) {
    log({ level: 'error', method, path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    if (!res.headersSent) {
      res.statusCode = 500;
      res.end();
    } else res.destroy();
  }
}

/** Whether an h3 route pattern (split at `/`) matches a path's segments: `:name` and `*` one segment, `**` the rest. */
export function matches(pattern: readonly string[], parts: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith('**')) return true;
    if (i >= parts.length) return false;
    if (p === '*' || (p.startsWith(':') && parts[i] !== '')) continue;
    if (p !== parts[i]) return false;
  }
  return pattern.length === parts.length;
}

/**
 * The answer with its headers in one list: the CORS headers and its own (node's quickest writeHead). A
 * text body goes out in one write with the head (node joins them); a Buffer in a second chunk.
 */
export function send(res: ServerResponse, status: number, type: string, body: Buffer | string): void {
  if (res.destroyed) return;
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  res.writeHead(status, [...CORS_LIST, 'content-type', type, 'content-length', String(length)]);
  res.end(body);
}

const CORS_LIST = Object.entries(CORS).flat();

/** The request's headers as the app reads them: a web Headers made from node's raw headers, as srvx makes it. */
export function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].charCodeAt(0) !== 58) headers.append(raw[i], raw[i + 1]);
  return headers;
}

