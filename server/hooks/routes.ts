// The host side of routerAdd / routerUse and cronAdd / cronRemove (the worker side: worker/routes.cjs).
// The hook files register one handler per route (event `route:<METHOD> <path>`) and per cron job (`__cron`), each
// keyed by its own filter; this module reads those registrations from the runtime after each load or
// reload (compared by identity on use: a reload swaps them), keeps the route table and the scheduler's
// jobs in step, matches a request to a route (the most specific pattern, routes-pattern.ts) and runs
// it. While a file loads, the worker asks `routes.check` and `cron.check` here, so a bad pattern, a
// pattern a built-in route answers, a second route with the same pattern or a bad cron expression
// fails the load naming the file and line (PocketBase panics at start for each of these).
import type { HostOps } from './runtime.js';
import type { AuthInfo } from '../model/types.js';
import { wireOf } from '../core/event-records.js';
import { notFound } from '../errors.js';
import { Cron } from './cron.js';
import { parseSchedule } from './cron-schedule.js';
import {
  builtInCovers, compareSpecificity, matchPath, methodMatches, parseRoutePattern, samePattern, type RoutePattern,
} from './routes-pattern.js';

const ROUTE = 'route:';
const CRON = '__cron';
const CRON_REMOVE = '__cronRemove';
const ROUTER_USE = '__routerUse';
const CRON_SOURCE = '__cronSource';

export interface Registration {
  event: string;
  filters: string[];
}

/** What this module needs of the hooks runtime (runtime.ts HooksRuntime). */
export interface HooksHost {
  addOps(ops: HostOps): void;
  trigger(
    event: string,
    payload: Record<string, unknown>,
    scope: Record<string, unknown>,
    action: (payload: Record<string, unknown>) => Promise<Record<string, unknown>>,
    collection?: { id: string; name: string },
  ): Promise<{ payload: Record<string, unknown>; ran: boolean }>;
  /** Every handler the loaded files registered, the `__…` events of routes and cron included (a new array after each load). */
  readonly allRegistrations: readonly Registration[];
  /** The hooks' logger. */
  readonly log: (entry: { level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR'; message: string; data: Record<string, unknown> }) => void;
}

/** A request as a route's handler sees it: plain values, made by the HTTP layer. */
export interface HookRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  host: string;
  headers: [string, string][];
  remoteAddr: string;
  remoteIP: string;
  realIP: string;
  tls: boolean;
  /** -1 when unknown (chunked). */
  contentLength: number;
  chunked: boolean;
  params: Record<string, string>;
}

/** The body, read once when a handler asks (bindBody, requestInfo, toString(e.request.body)). */
export interface HookRequestBody {
  /** `limit`: the route's $apis.bodyLimit in bytes (0: PocketBase's default, 32 MiB). */
  object(limit: number): Promise<Record<string, unknown>>;
  text(limit: number): Promise<string>;
}

/** What the handlers answered. */
export interface HookResponse {
  written: boolean;
  status: number;
  headers: [string, string][];
  /** `json`: the JSON text the handler's e.json wrote; `error`: what a handler threw, for the envelope. */
  body:
    | { json: string } | { text: string } | { base64: string } | { file: { path: string; size: number; mtime: number } }
    | { error: { status: number; message: string; data: Record<string, unknown> } } | null;
  skipSuccessLog: boolean;
  gzip: boolean;
}

export interface HookRoute {
  key: string;
  /** Its event (`route:GET /hello/{name}`). */
  event: string;
  pattern: RoutePattern;
}

/** A built-in route of the HTTP app, in h3's terms (`/api/collections/:collection/records`). */
export interface BuiltInRoute {
  method?: string;
  route?: string;
}

const describe = (p: RoutePattern) => `${p.method === '' ? '' : `${p.method} `}${p.path}`;

export class HookRoutes {
  private seen: readonly Registration[] | null = null;
  private table: HookRoute[] = [];
  /** Jobs cronAdd added from a running handler (their function's source): kept across reloads, as until a restart in PocketBase. */
  private readonly added = new Map<string, { expression: string; source: string }>();

  /**
   * `builtIns`: the HTTP app's own routes (read when a file loads, so the app is built by then);
   * `auth`: the wire form (runtime's records) of the request's auth record.
   */
  constructor(
    private readonly host: HooksHost,
    readonly cron: Cron,
    private readonly builtIns: () => readonly BuiltInRoute[],
  ) {
    host.addOps(this.ops());
  }

  private ops(): HostOps {
    return {
      'routes.check': (_ctx, method: string, path: string, before: [string, string][]) => {
        let pattern: RoutePattern;
        try {
          pattern = parseRoutePattern(method, path);
        } catch (err) {
          throw new Error(`[routerAdd] ${(err as Error).message}`, { cause: err });
        }
        for (const [m, p] of before ?? []) {
          const other = parseRoutePattern(m, p);
          if (samePattern(other, pattern)) {
            throw new Error(`[routerAdd] pattern "${describe(pattern)}" conflicts with pattern "${describe(other)}" added before: both match the same requests`);
          }
        }
        const covering = this.builtIns().find((b) => b.route !== '/**' && builtInCovers(b, pattern));
        if (covering) {
          throw new Error(`[routerAdd] pattern "${describe(pattern)}" is answered by the built-in route ${(covering.method ?? '').toUpperCase()} ${covering.route}: built-in routes come first, so it would never run`);
        }
        return null;
      },
      'routes.body': (ctx, limit: number) => bodyOf(ctx.scope).object(limit),
      'routes.bodyText': (ctx, limit: number) => bodyOf(ctx.scope).text(limit),
      'cron.check': (_ctx, id: string, expression: string) => {
        try {
          return parseSchedule(expression).expression;
        } catch (err) {
          throw new Error(`[cronAdd] failed to register cron job ${id}: failed to add new cron job: ${(err as Error).message}`, { cause: err });
        }
      },
      'cron.add': (_ctx, id: string, expression: string, source: string) => {
        let schedule: string;
        try {
          schedule = parseSchedule(expression).expression;
        } catch (err) {
          throw new Error(`[cronAdd] failed to register cron job ${id}: failed to add new cron job: ${(err as Error).message}`, { cause: err });
        }
        if (!this.host.allRegistrations.some((r) => r.event === CRON_SOURCE)) {
          throw new Error(`[cronAdd] failed to register cron job ${id}: at run time, Deskbase takes cronAdd from a handler whose own code calls it (not through a function of another file)`);
        }
        this.sync();
        this.added.delete(id);
        this.added.set(id, { expression: schedule, source });
        this.addSourceJob(id, schedule, source);
        return null;
      },
      'cron.remove': (_ctx, id: string) => {
        this.added.delete(id);
        this.cron.remove(id);
        return null;
      },
    };
  }

  /** Brings the route table and the cron jobs in step with the files loaded now (cheap when unchanged). */
  sync(): void {
    const regs = this.host.allRegistrations;
    if (regs === this.seen) return;
    this.seen = regs;
    const table: HookRoute[] = [];
    const jobs = new Map<string, { key: string; expression: string }>();
    for (const r of regs) {
      if (r.event.startsWith(ROUTE)) {
        const [key, method, path] = r.filters;
        table.push({ key, event: r.event, pattern: parseRoutePattern(method, path) });
      } else if (r.event === CRON) {
        const [key, id, expression] = r.filters;
        jobs.delete(id); // a later cronAdd of an id replaces it (and goes last, as PocketBase)
        jobs.set(id, { key, expression });
      } else if (r.event === CRON_REMOVE) jobs.delete(r.filters[1]);
    }
    if (regs.some((r) => r.event === ROUTER_USE)) {
      this.host.log({ level: 'WARN', message: 'routerUse middlewares run around the routes of pb_hooks (routerAdd), not around Deskbase\'s built-in routes', data: {} });
    }
    this.table = table;
    this.cron.removeAll();
    for (const [id, { key, expression }] of jobs) {
      this.cron.add(id, expression, async () => {
        await this.host.trigger(CRON, {}, {}, async (p) => p, { id: key, name: key });
      });
    }
    for (const [id, { expression, source }] of this.added) this.addSourceJob(id, expression, source);
  }

  private addSourceJob(id: string, expression: string, source: string): void {
    this.cron.add(id, expression, async () => {
      await this.host.trigger(CRON_SOURCE, { source, jobId: id }, {}, async (p) => p);
    });
  }

  /** The cron jobs as `GET /api/crons` lists them. */
  jobs(): { id: string; expression: string }[] {
    this.sync();
    return this.cron.jobs();
  }

  /** Starts job `id` now (`POST /api/crons/{id}`); null when there is no such job. */
  runNow(id: string): Promise<unknown> | null {
    this.sync();
    return this.cron.runNow(id);
  }

  /** The route answering `method` on `segments` (the path split after its leading `/`, each decoded), with its path values. */
  match(method: string, segments: readonly string[]): { route: HookRoute; params: Record<string, string> } | null {
    this.sync();
    let best: { route: HookRoute; params: Record<string, string> } | null = null;
    for (const route of this.table) {
      if (!methodMatches(route.pattern.method, method)) continue;
      const params = matchPath(route.pattern, segments);
      if (params && (!best || compareSpecificity(route.pattern, best.route.pattern) < 0)) best = { route, params };
    }
    return best;
  }

  /** Runs the route's middlewares and handler; rejects with the handler's error (an ApiError for the envelope). */
  async serve(route: HookRoute, request: HookRequest, auth: AuthInfo | null, body: HookRequestBody): Promise<HookResponse> {
    const { payload } = await this.host.trigger(route.event, { request, auth: auth ? wireOf(auth.collection, auth.record) : null }, { routeBody: body }, async (p) => p, { id: route.key, name: route.key });
    const response = payload.response as HookResponse | undefined;
    // no handler ran: the files were reloaded without this route between its match and now
    if (!response) throw notFound();
    return response;
  }
}

function bodyOf(scope: unknown): HookRequestBody {
  const body = (scope as { routeBody?: HookRequestBody } | undefined)?.routeBody;
  if (!body || typeof body.object !== 'function') throw new Error('the request body is read only while a route handles its request');
  return body;
}
