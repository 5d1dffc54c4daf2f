// The hottest write served straight from node:http: `POST /api/collections/{collection}/records` with
// a JSON body, without the h3 layers that do no work for it (the web Request and Headers wrappers, the
// middleware chain, the router, the web Response and its copy back to node), as fast-reads.ts does for
// the record reads. A durable create spent about a tenth of its CPU there.
//
// Every behaviour of the app is kept by doing the same things through the same owners, or by leaving
// the request to the app (createNodeHandler) whenever one of them would differ:
//   - to the app: any other method or path, the conditions fast-reads.ts leaves to it (a `%` escape or
//     anything the URL parser rewrites, a URL over MAX_URL_LENGTH, a Host the policy refuses, a cookie,
//     rate limits on or a trusted proxy set, a path another route of the app takes), and any body that
//     is not `application/json` (multipart uploads, forms: routes/records-api.ts);
//   - here: the bearer token resolved by the one session store (core.sessions.resolve), the body read
//     by the one body reader (body.ts `readNodeJsonObject`: byte limit, bodies in flight, shape count,
//     parser thread), the request context built by core from the same input the app builds (request.ts
//     inputOf), the write by core.records.create (rules, validation, hooks, journal, realtime), the
//     answer's JSON and headers as h3 writes them, errors answered by the app's one mapping
//     (answers.ts `failed`), and the request logged as the app logs it (answers.ts `logAnswered`), both
//     through fast-reads.ts `answerDirect`, as the reads are.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from '../core/index.js';
import type { Logs } from '../logs/index.js';
import { readNodeJsonObject } from './body.js';
import type { BodyServices } from './body-services.js';
import { bearerFrom } from './caller.js';
import { clientKey } from './client-key.js';
import { answerDirect, matches, PLAIN_SEGMENT, PREFIX, UNPLAIN } from './fast-reads.js';
import { RawHeaders } from './raw-headers.js';
import { MAX_URL_LENGTH, queryFrom } from './request.js';

export interface FastCreateOptions {
  core: Core;
  /** The app's other POST routes (h3 patterns): a path one of them matches is theirs. */
  routes: readonly string[];
  /** The app's bodies in flight and parser thread (body-services.ts): the ones its own routes use. */
  bodies: BodyServices;
  allowHost: (host: string | null) => boolean;
  logs: Logs | undefined;
  log: (entry: Record<string, unknown>) => void;
}

/** Whether the request is served here (true: it is answered, now or later); false leaves it to the app. */
export type FastCreates = (req: IncomingMessage, res: ServerResponse) => boolean;

export function fastCreates(options: FastCreateOptions): FastCreates {
  const { core, allowHost, logs, log, bodies } = options;
  const others = options.routes.map((r) => r.split('/')).filter((p) => p.length === 5 || p.some((s) => s.includes('*')));
  const shadowed = (parts: string[]) => others.some((p) => matches(p, parts));
  return (req, res) => {
    const url = req.url;
    if (req.method !== 'POST' || url === undefined || !url.startsWith(PREFIX) || url.length > MAX_URL_LENGTH) return false;
    if (UNPLAIN.test(url)) return false;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path.includes('%')) return false;
    // ['', 'api', 'collections', name, 'records']
    const parts = path.split('/');
    if (parts.length !== 5 || parts[4] !== 'records' || !PLAIN_SEGMENT.test(parts[3])) return false;
    if (req.headers.cookie !== undefined || shadowed(parts)) return false;
    // as body.ts readBodyObject reads the media type; anything but JSON is the app's (multipart, forms)
    if ((req.headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase() !== 'application/json') return false;
    // a copy CACHE_MS old or older: the app's path, which reads the settings again first
    const settings = core.settings.ifFresh();
    if (settings === null || settings.rateLimits.enabled || settings.trustedProxy.headers.length > 0) return false;
    const headers = new RawHeaders(req.rawHeaders);
    if (!allowHost(headers.get('host'))) return false;
    // as the app's: the whole create is its client's work (core.asClient), the client's key as rules see it
    const client = clientKey(req.socket.remoteAddress);
    void core.asClient(client, () => serve(req, res, headers, client, path, q < 0 || q === url.length - 1 ? '' : url.slice(q), parts[3]));
    return true;
  };

  function serve(req: IncomingMessage, res: ServerResponse, headers: RawHeaders, client: string, path: string, search: string, name: string): Promise<void> {
    return answerDirect(req, res, 'POST', path, search, headers, logs, log, async (caller) => {
      // the app's order: the caller (authMiddleware), a locked create refused, then the body read
      const bearer = bearerFrom(headers.get('authorization'));
      const auth = bearer === null ? null : (caller.auth = await core.sessions.resolve(bearer));
      const query = search === '' ? {} : queryFrom(new URLSearchParams(search));
      const ctx = core.context({ auth, method: 'POST', query, headers, client });
      // as the app's (routes/records-api.ts withBody): a create locked to superusers, or of no such
      // collection, is refused before its body is read
      core.records.refuseLocked(name, 'createRule', ctx);
      const body = await readNodeJsonObject(req, res, bodies);
      return JSON.stringify(await core.records.create(name, body, ctx));
    });
  }
}
