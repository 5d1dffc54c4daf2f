// Server-side hooks assembled for one server: the runtime (runtime.ts) with the host operations of each
// feature, started on the server's core. server/index.ts calls `createHooks` before the core (core takes
// the runtime as its `events`) and `startHooks` once the core exists.
import type { Core } from '../core/index.js';
import { appOps } from './app-ops.js';
import { HooksRuntime, type HooksOptions } from './runtime.js';
import { toolOps } from './tool-ops.js';
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/db.js';
import { Cron, type CronLog } from './cron.js';
import { storeClaims } from './cron-claims.js';
import { HookRoutes, type BuiltInRoute } from './routes.js';
import { collectionOps } from './migrations-ops.js';

export { HooksRuntime, HOOK_TIMEOUT_MS, HOOK_WORKERS, hookFiles } from './runtime.js';
export type { HookLogger, HookLogEntry, HooksOptions } from './runtime.js';

export function createHooks(options: HooksOptions): HooksRuntime {
  return new HooksRuntime(options);
}

/**
 * Adds every feature's host operations and loads the files (a file that fails to load rejects, naming
 * it), then runs `onBootstrap`. Features (routes, cron, db, migrations) add their `*Ops(core)` here.
 */
export async function startHooks(runtime: HooksRuntime, core: Core, options: { dataDir: string | null }): Promise<void> {
  runtime.useClients({ now: core.clientNow, run: core.asClient });
  runtime.addOps(appOps(core, options));
  runtime.addOps(toolOps(core));
  runtime.addOps(collectionOps(core, runtime.log));
  await runtime.start();
  await runtime.trigger('onBootstrap', {}, {}, async (p) => p);
}

/**
 * The routes (routerAdd) and cron jobs (cronAdd) of a runtime, made before it starts (their checks run
 * while the files load). `builtIns`: the HTTP app's own routes, read when a file adds a route. The cron
 * ticks once `start` is called, claiming each tick in the database (once across a team server's nodes).
 */
export function createRoutesAndCron(runtime: HooksRuntime, store: Store, options: { builtIns: () => readonly BuiltInRoute[]; cronIntervalMs?: number }): { routes: HookRoutes; start(): void; close(): Promise<void> } {
  const level = { info: 'INFO', warn: 'WARN', error: 'ERROR' } as const;
  const log: CronLog = ({ level: l, message, ...data }) => runtime.log({ level: level[l], message, data });
  let routes: HookRoutes | null = null;
  const cron = new Cron({ claims: storeClaims(store, randomUUID(), { crossNode: store.dialect === 'postgres' }), intervalMs: options.cronIntervalMs, log, beforeTick: () => routes?.sync() });
  routes = new HookRoutes(runtime, cron, options.builtIns);
  return {
    routes,
    start: () => {
      routes!.sync();
      cron.start();
    },
    close: () => cron.close(),
  };
}
