// Server-side hooks assembled for one server: the runtime (runtime.ts) with the host operations of each
// feature, started on the server's core. server/index.ts calls `createHooks` before the core (core takes
// the runtime as its `events`) and `startHooks` once the core exists.
import type { Core } from '../core/index.js';
import { appOps } from './app-ops.js';
import { HooksRuntime, type HooksOptions } from './runtime.js';
import { toolOps } from './tool-ops.js';
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
  runtime.addOps(appOps(core, options));
  runtime.addOps(toolOps(core));
  runtime.addOps(collectionOps(core, runtime.log));
  await runtime.start();
  await runtime.trigger('onBootstrap', {}, {}, async (p) => p);
}
