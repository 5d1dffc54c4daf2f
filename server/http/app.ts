// The HTTP app: one h3 instance, every error a request meets mapped to the spec's envelope here and nowhere
// else (node:http's own refusals before the app sees a request: client-error.ts; both through envelope.ts).
import { H3, HTTPError, toNodeHandler, type H3Event } from 'h3';
import { ApiError } from '../errors.js';
import type { Core } from '../core/index.js';
import { storeFailure } from '../core/store-failures.js';
import { authMiddleware } from './caller.js';
import { BodyNotReceived } from './body.js';
import { createBodyServices, setBodyServices, type BodyServices } from './body-services.js';
import { envelopeJson, GENERIC_MESSAGES } from './envelope.js';
import { hostCheck } from './hosts.js';
import { assertUrlLength } from './request.js';
import { rateLimitMiddleware } from './rate-limit.js';
import { registerAuth } from './routes/auth-api.js';
import { registerBackup } from './routes/backup-api.js';
import { registerBatch } from './routes/batch-api.js';
import { registerCollections } from './routes/collections-api.js';
import { registerCrons, type CronJobs } from './routes/crons.js';
import { serveHookRoute, type HookRouter } from './hook-routes.js';
import { registerFiles } from './routes/files-api.js';
import { registerHealth } from './routes/health-api.js';
import { registerLogs } from './routes/logs-api.js';
import type { Logs } from '../logs/index.js';
import { realIpOf, stateOf } from './request.js';
import { registerRealtime } from './routes/realtime-api.js';
import { registerRecords } from './routes/records-api.js';
import { registerSessions } from './routes/sessions-api.js';
import { registerSettings } from './routes/settings-api.js';
import { registerSetup } from './routes/setup-api.js';
import { registerRecordsTransfer, registerTransfer } from './routes/transfer-api.js';
import { registerStatic } from './static.js';

export interface AppOptions {
  /** Folder of the built admin UI (index.html, assets/), or null when not built. */
  uiDir?: string | null;
  /** Structured log lines (requests when verbose, and server errors). */
  log?: (entry: Record<string, unknown>) => void;
  verbose?: boolean;
  /** Whether a Host header names this server (DNS rebinding); by default loopback names only. */
  allowHost?: (host: string | null) => boolean;
  /** Request body bytes held in memory at once across all requests (bodies-in-flight.ts). */
  bodyBytesInFlight?: number;
  /** The bodies' services (body-services.ts), made by the caller that reads them (startServer); else the app's own. */
  bodies?: BodyServices;
  /** Realtime bytes waiting to be sent, all event streams together (routes/realtime-api.ts). */
  realtimeQueueBytes?: number;
  /** The server's logs (server/logs/): every request is logged there, and `/api/logs` reads them. */
  logs?: Logs;
  /** The hooks' cron jobs (server/hooks/cron.ts) for `/api/crons`; none when absent. */
  crons?: CronJobs | null;
  /** The hooks' routes (routerAdd: server/hooks/routes.ts), served where no built-in route answers. */
  hookRoutes?: HookRouter | null;
  /** Told the app's built-in routes once they are registered (a hook route one of them covers is refused). */
  onBuiltIns?: (routes: { method?: string; route?: string }[]) => void;
}

/**
 * Requests whose success is not logged, as PocketBase's SkipSuccessActivityLog: the logs' own reads,
 * the realtime connection (its subscriptions are logged), OAuth2 redirects.
 */
const UNLOGGED_SUCCESS = /^(?:GET \/api\/logs(?:\/|$)|GET \/api\/realtime$|(?:GET|POST) \/api\/oauth2-redirect$)/;

/** What a failed request's log says of its error (message, the envelope's data). */
interface Failure { error: string; details?: unknown }

const CORS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, POST, PATCH, PUT, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, accept, x-requested-with',
  'access-control-max-age': '86400',
};

function envelope(status: number, message: string, data: object = {}): Response {
  return new Response(envelopeJson(status, message, data), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...CORS },
  });
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

export function createApp(core: Core, options: AppOptions = {}): H3 {
  const log = options.log ?? (() => {});
  const started = new WeakMap<H3Event, number>();
  const failures = new WeakMap<H3Event, Failure>();
  const logs = options.logs;
  const app = new H3({
    silent: true,
    onRequest(event) {
      started.set(event, performance.now());
    },
    onResponse(response, event) {
      // a request through node:http got them before the app ran (createNodeHandler); reading
      // `response.headers` would copy a JSON answer's headers into a web Headers object to add them
      if (event.runtime?.node?.res === undefined) {
        for (const k in CORS) if (!response.headers.has(k)) {
          try { response.headers.set(k, CORS[k]); } catch { /* immutable headers (static files) */ }
        }
      }
      if (logs !== undefined) logRequest(logs, event, response.status, started.get(event), failures.get(event));
      if (options.verbose) {
        const t0 = started.get(event);
        log({ level: 'info', method: event.req.method, path: event.url.pathname, status: response.status, ms: t0 === undefined ? undefined : Math.round((performance.now() - t0) * 10) / 10 });
      }
    },
    onError(error, event) {
      const api = findApiError(error);
      if (logs !== undefined) failures.set(event, api ? { error: api.message, details: api.data } : { error: errorMessage((error as { cause?: unknown }).cause ?? error) });
      if (api instanceof BodyNotReceived) log({ level: 'warn', method: event.req.method, path: event.url.pathname, error: 'client closed the connection before its body was received' });
      if (api) return envelope(api.status, api.message, api.data);
      const status = error instanceof HTTPError ? error.status : 500;
      if (status >= 500 || !(error instanceof HTTPError) || error.unhandled) {
        const cause = (error as { cause?: unknown }).cause ?? error;
        // the database reached its size cap (the desktop's store option maxDatabaseBytes): core/store-failures.ts reads it
        if (storeFailure(cause)?.kind === 'full') {
          log({ level: 'warn', method: event.req.method, path: event.url.pathname, error: 'the database has reached its size limit' });
          return envelope(507, 'The database has reached its size limit. Nothing was changed; delete records to make room.');
        }
        log({ level: 'error', method: event.req.method, path: event.url.pathname, error: cause instanceof Error ? (cause.stack ?? cause.message) : String(cause) });
        const code = (cause as { code?: unknown }).code;
        // EFBIG: a file-size limit (ulimit -f, some file systems' largest file) refuses the write like a full disk
        if (code === 'ENOSPC' || code === 'EROFS' || code === 'EACCES' || code === 'EPERM' || code === 'EIO' || code === 'EDQUOT' || code === 'EFBIG') {
          return envelope(503, 'The data folder cannot be written to right now (disk full or read-only). Nothing was changed.');
        }
        return envelope(500, 'Something went wrong while processing your request.');
      }
      return envelope(status, GENERIC_MESSAGES[status] ?? GENERIC_MESSAGES[400]);
    },
  });

  const allowHost = options.allowHost ?? hostCheck(() => '127.0.0.1');
  const bodies = options.bodies ?? createBodyServices(options.bodyBytesInFlight);
  app.use((event) => {
    setBodyServices(event, bodies);
    // before anything reads a cookie or answers: a page on another name must not reach this server
    if (!allowHost(event.req.headers.get('host'))) throw new ApiError(421, 'The Host header does not name this server.');
    assertUrlLength(event);
    if (event.req.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
    return undefined;
  });
  app.use('/api/**', authMiddleware(core));
  // the trusted proxy's client and PocketBase's rate-limit rules (settings), for every path as PocketBase's
  app.use(rateLimitMiddleware(core));
  registerHealth(app);
  registerSetup(app, core);
  registerAuth(app, core, (options.uiDir ?? null) !== null);
  registerSessions(app, core);
  registerSettings(app, core);
  registerTransfer(app, core);
  registerRecordsTransfer(app, core);
  registerCollections(app, core);
  registerRecords(app, core);
  registerRealtime(app, core, options.realtimeQueueBytes);
  registerBatch(app, core);
  registerFiles(app, core);
  registerBackup(app, core);
  if (logs !== undefined) registerLogs(app, core, logs);
  registerCrons(app, () => options.crons ?? null);
  registerStatic(app, options.uiDir ?? null);
  app.all('/**', async (event) => {
    const answer = options.hookRoutes ? await serveHookRoute(event, core, options.hookRoutes) : null;
    if (answer) return answer;
    throw new ApiError(404, 'Not found.');
  });
  options.onBuiltIns?.(builtInRoutes(app));
  return app;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Hands one request's facts to the logs (server/logs/), once its response is ready: a few reads of the
 * request and one push onto the logger's queue; the log itself is made and written later, in a batch.
 */
function logRequest(logs: Logs, event: H3Event, status: number, t0: number | undefined, failure: Failure | undefined): void {
  const path = event.url.pathname;
  const method = event.req.method;
  if (failure === undefined && UNLOGGED_PREFIX.test(path) && UNLOGGED_SUCCESS.test(`${method} ${path}`)) return;
  const auth = stateOf(event).auth;
  // node's own header object where there is one: the web Headers over it cost more to read
  const node = event.runtime?.node?.req;
  const header = node === undefined ? (name: string) => event.req.headers.get(name) ?? '' : (name: string) => headerText(node.headers[name]);
  const facts = {
    method,
    url: path + event.url.search,
    status,
    execTime: t0 === undefined ? 0 : Math.round((performance.now() - t0) * 1000) / 1000,
    userAgent: header('user-agent'),
    referer: header('referer'),
    auth: auth?.collection.name ?? '',
    authId: auth === null ? '' : String(auth.record.id),
    ip: unmapped(realIpOf(event)),
    remoteIp: unmapped(node?.socket.remoteAddress ?? ''),
  };
  logs.request(failure === undefined ? facts : { ...facts, ...failure });
}

/** The paths UNLOGGED_SUCCESS can match at all (tested first: most requests are none of them). */
const UNLOGGED_PREFIX = /^\/api\/(?:logs|realtime|oauth2-redirect)/;

const unmapped = (address: string): string => (address.startsWith('::ffff:') ? address.slice(7) : address);

/** A header as the web Headers reads it: repeated values joined (node keeps `set-cookie`'s apart). */
function headerText(value: string | string[] | undefined): string {
  return value === undefined ? '' : typeof value === 'string' ? value : value.join(', ');
}

/** The app's built-in routes (method and h3 pattern): a hook route one of them covers is refused (server/hooks/routes.ts). */
export function builtInRoutes(app: H3): { method?: string; route?: string }[] {
  return app['~routes'].map((r) => ({ method: r.method, route: r.route }));
}

/** The app as a node:http request listener (the server's only contact with h3 outside this folder). */
export function createNodeHandler(core: Core, options: AppOptions = {}): ReturnType<typeof toNodeHandler> {
  const handler = toNodeHandler(createApp(core, options));
  // The CORS headers on node's response before the app runs: node keeps a header the app's answer
  // sets itself over these (its writeHead replaces a name the answer names), as onResponse does for
  // in-process requests.
  return (req, res) => {
    for (const k in CORS) res.setHeader(k, CORS[k]);
    return handler(req, res);
  };
}
