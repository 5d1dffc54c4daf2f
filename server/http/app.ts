// The HTTP app: one h3 instance, every error a request meets mapped to the spec's envelope here and nowhere
// else (node:http's own refusals before the app sees a request: client-error.ts; both through envelope.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { H3, toNodeHandler, type H3Event } from 'h3';
import { ApiError } from '../errors.js';
import type { Core } from '../core/index.js';
import type { Settings } from '../core/settings.js';
import { CORS, envelope, failed, logAnswered, type Failure } from './answers.js';
import { authMiddleware } from './caller.js';
import { createBodyServices, setBodyServices, type BodyServices } from './body-services.js';
import { fastCreates } from './fast-creates.js';
import { fastReads } from './fast-reads.js';
import { ReadCache } from './read-cache.js';
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
import { clientOf, realIpOf, stateOf, trustProxy } from './request.js';
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

/** The record reads' patterns (routes/records-api.ts), which fast-reads.ts serves. */
const RECORD_READS = new Set(['/api/collections/:collection/records', '/api/collections/:collection/records/:id']);

/** The record create's pattern (routes/records-api.ts), which fast-creates.ts serves for JSON bodies. */
const RECORD_CREATE = '/api/collections/:collection/records';

/** Without a policy: loopback names only. */
const defaultHosts = hostCheck(() => '127.0.0.1');

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
      const f = failed(error, event.req.method, event.url.pathname, log);
      if (logs !== undefined) failures.set(event, f.failure);
      return envelope(f.status, f.json);
    },
  });

  const allowHost = options.allowHost ?? defaultHosts;
  const bodies = options.bodies ?? createBodyServices(options.bodyBytesInFlight);
  app.use((event) => {
    setBodyServices(event, bodies);
    // before anything reads a cookie or answers: a page on another name must not reach this server
    if (!allowHost(event.req.headers.get('host'))) throw new ApiError(421, 'The Host header does not name this server.');
    assertUrlLength(event);
    if (event.req.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
    return undefined;
  });
  // who the request is (request.ts clientOf: behind a trusted proxy, the client the proxy names): the
  // rest of its handling runs as that client's work, among which the store shares its connections fairly
  app.use((event, next) => {
    // at most CACHE_MS old: another node's change (a proxy no longer trusted) holds from then on
    const settings = core.settings.fresh();
    const go = ({ trustedProxy: proxy }: Settings) => {
      if (proxy.headers.length > 0) trustProxy(event, proxy);
      return core.asClient(clientOf(event), next);
    };
    return settings instanceof Promise ? settings.then(go) : go(settings);
  });
  app.use('/api/**', authMiddleware(core));
  // PocketBase's rate-limit rules (settings), for every path as PocketBase's
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

/**
 * Hands one request's facts to the logs (server/logs/), once its response is ready: a few reads of the
 * request and one push onto the logger's queue; the log itself is made and written later, in a batch.
 */
function logRequest(logs: Logs, event: H3Event, status: number, t0: number | undefined, failure: Failure | undefined): void {
  const node = event.runtime?.node?.req;
  const headers = event.req.headers;
  logAnswered(logs, {
    method: event.req.method, path: event.url.pathname, search: event.url.search, status, t0,
    auth: stateOf(event).auth,
    userAgent: headers.get('user-agent') ?? '',
    referer: headers.get('referer') ?? '',
    ip: realIpOf(event),
    remoteIp: node?.socket.remoteAddress ?? '',
  }, failure);
}

/** The app's built-in routes (method and h3 pattern): a hook route one of them covers is refused (server/hooks/routes.ts). */
export function builtInRoutes(app: H3): { method?: string; route?: string }[] {
  return app['~routes'].map((r) => ({ method: r.method, route: r.route }));
}

/** The app as a node:http request listener (the server's only contact with h3 outside this folder). */
export function createNodeHandler(core: Core, options: AppOptions = {}): ReturnType<typeof toNodeHandler> {
  // the app's bodies in flight and parser thread, shared with the creates served without it
  const bodies = options.bodies ?? createBodyServices(options.bodyBytesInFlight);
  const app = createApp(core, { ...options, bodies });
  const handler = toNodeHandler(app);
  // the app's GET routes beside the two record reads, besides its catch-all (hook routes)
  const routes = builtInRoutes(app).filter((r) => (r.method === undefined || r.method === 'GET') && r.route !== undefined && r.route !== '/**' && !RECORD_READS.has(r.route)).map((r) => r.route as string);
  // the hottest reads straight from node:http (fast-reads.ts), unless the app logs every request itself
  // answers of record reads kept between requests where the store allows it (read-cache.ts)
  const fast = options.verbose ? null : fastReads({ core, routes, cache: new ReadCache(core), allowHost: options.allowHost ?? defaultHosts, logs: options.logs, log: options.log ?? (() => {}) });
  // and the plain JSON create (fast-creates.ts), beside the app's other POST routes
  const posts = builtInRoutes(app).filter((r) => (r.method === undefined || r.method === 'POST') && r.route !== undefined && r.route !== '/**' && r.route !== RECORD_CREATE).map((r) => r.route as string);
  const fastCreate = options.verbose ? null : fastCreates({ core, routes: posts, bodies, allowHost: options.allowHost ?? defaultHosts, logs: options.logs, log: options.log ?? (() => {}) });
  // The CORS headers on node's response before anything answers: node keeps a header the app's answer
  // sets itself over these (its writeHead replaces a name the answer names), as onResponse does for
  // in-process requests.
  return (req, res) => {
    // (HTTP/1 only: an HTTP/2 request's objects are another kind; the fast reads write CORS with their answer)
    if (fast !== null && req.httpVersionMajor === 1 && fast(req as IncomingMessage, res as ServerResponse)) return;
    if (fastCreate !== null && req.httpVersionMajor === 1 && fastCreate(req as IncomingMessage, res as ServerResponse)) return;
    for (const k in CORS) res.setHeader(k, CORS[k]);
    return handler(req, res);
  };
}
