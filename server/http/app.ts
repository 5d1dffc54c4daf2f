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
import { registerAuth } from './routes/auth-api.js';
import { registerBackup } from './routes/backup-api.js';
import { registerBatch } from './routes/batch-api.js';
import { registerCollections } from './routes/collections-api.js';
import { registerFiles } from './routes/files-api.js';
import { registerHealth } from './routes/health-api.js';
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
}

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
  const app = new H3({
    silent: true,
    onRequest(event) {
      started.set(event, performance.now());
    },
    onResponse(response, event) {
      for (const [k, v] of Object.entries(CORS)) if (!response.headers.has(k)) {
        try { response.headers.set(k, v); } catch { /* immutable headers (static files) */ }
      }
      if (options.verbose) {
        const t0 = started.get(event);
        log({ level: 'info', method: event.req.method, path: event.url.pathname, status: response.status, ms: t0 === undefined ? undefined : Math.round((performance.now() - t0) * 10) / 10 });
      }
    },
    onError(error, event) {
      const api = findApiError(error);
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
  registerHealth(app);
  registerSetup(app, core);
  registerAuth(app, core);
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
  registerStatic(app, options.uiDir ?? null);
  app.all('/**', () => {
    throw new ApiError(404, 'Not found.');
  });
  return app;
}

/** The app as a node:http request listener (the server's only contact with h3 outside this folder). */
export function createNodeHandler(core: Core, options: AppOptions = {}): ReturnType<typeof toNodeHandler> {
  return toNodeHandler(createApp(core, options));
}
