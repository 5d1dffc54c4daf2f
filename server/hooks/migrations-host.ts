// Where migrations meet the hooks runtime: a file's `up` or `down` runs on a hooks worker as the event
// MIGRATION_EVENT (registered by worker/migrations.cjs before any hook file loads), inside the
// migration's transaction: the event's scope carries it, so every `app.*` call of the file (collections,
// records, `app.db()`) goes through it, and what those calls stage for after the commit (or the
// rollback) waits for it. A file runs under a time limit of its own (MIGRATION_TIMEOUT_MS).
import type { Core } from '../core/index.js';
import type { EventScope } from '../core/events.js';
import type { HooksRuntime } from './runtime.js';
import { listMigrationFiles, migrateUp, type MigrationHost } from './migrations.js';

/** The event a migration file runs as (worker/migrations.cjs registers its one handler). */
export const MIGRATION_EVENT = '__migration';

/**
 * How long one file may run (the hooks' limit when that is longer): a file's time is mostly the
 * store's (a snapshot of 20 collections takes seconds), and it runs before the server listens, so the
 * limit only stops a file that never ends.
 */
export const MIGRATION_TIMEOUT_MS = 5 * 60_000;

export function migrationHost(runtime: HooksRuntime): MigrationHost {
  return {
    async run(tx, file, direction, staged) {
      const scope: EventScope = { tx, changes: [], afterCommit: staged.afterCommit, afterRollback: staged.afterRollback };
      await runtime.trigger(MIGRATION_EVENT, { file: file.path, direction }, scope, async (payload) => payload, undefined, Math.max(MIGRATION_TIMEOUT_MS, runtime.timeoutMs));
    },
  };
}

/** Applies the files of `dir` not applied yet (a server's start); logs each as PocketBase's `migrate up` prints it. */
export async function applyMigrations(runtime: HooksRuntime, core: Core, dir: string, log: (line: string) => void, report?: (error: unknown) => void): Promise<string[]> {
  const files = await listMigrationFiles(dir);
  if (files.length === 0) return [];
  const applied = await migrateUp({ store: core.store, registry: core.registry, host: migrationHost(runtime), report }, files);
  for (const file of applied) log(`Applied ${file}`);
  return applied;
}
