// JS migrations, as PocketBase's (core/migrations_runner.go, plugins/jsvm): the `*.js` files of the
// migrations folder (`pb_migrations/` beside the data folder by default, `--migrations DIR`), each a
// `migrate((app) => {...}, (app) => {...})`, applied in file-name order, each once, recorded in
// `_migrations` (file, applied in Unix microseconds; store/schema.ts and store-postgres/schema.ts).
// Unlike PocketBase, which runs a whole `up` in one transaction, each file runs in a transaction of its
// own: one that throws rolls back alone (the ones before it stay applied) and stops the start with a
// message naming the file and the line. The file's `app` is the hooks' `$app`, bound to that
// transaction (server/hooks/ runs the file on a hooks worker: `MigrationHost`).
// On a team server every node runs this at start: the transaction takes an advisory lock first and
// checks `_migrations` again inside it, so each file runs once across the nodes.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Registry } from '../core/collection-registry.js';
import type { Store, WriteTx } from '../store/db.js';

/** The advisory lock key a team server's migration transaction takes ("dkmg" in ASCII). */
export const MIGRATION_LOCK_KEY = 0x646b6d67;

export interface MigrationFile {
  /** The file's name, as `_migrations` records it. */
  file: string;
  path: string;
}

export type Direction = 'up' | 'down';

/** What a file's work leaves for after its transaction: announcements and file clean-up once committed, undoing once rolled back. */
export interface Staged {
  afterCommit: (() => void | Promise<void>)[];
  afterRollback: (() => void | Promise<void>)[];
}

/**
 * Runs one file's `up` or `down` inside `tx` (on a hooks worker, its `app` bound to `tx`), staging in
 * `staged` what follows the transaction; throws when the file fails, its message naming the file and line.
 */
export interface MigrationHost {
  run(tx: WriteTx, file: MigrationFile, direction: Direction, staged: Staged): Promise<void>;
}

export interface MigrationDeps {
  store: Store;
  registry: Registry;
  host: MigrationHost;
  /** Hears a failure of what runs after a transaction (it cannot fail the migration any more). */
  report?: (error: unknown) => void;
}

async function settle(list: Staged['afterCommit'], report: (error: unknown) => void): Promise<void> {
  for (const fn of list) {
    try {
      await fn();
    } catch (err) {
      report(err);
    }
  }
}

/** A migration that failed: the start (or the command) stops with this message. */
export class MigrationFailed extends Error {
  constructor(readonly file: string, readonly direction: Direction, cause: unknown) {
    // a file's error as the file threw it (the hooks runtime keeps it as `hookMessage` beside the API's sentence)
    const said = (cause as { hookMessage?: unknown } | null)?.hookMessage;
    super(`Failed to ${direction === 'up' ? 'apply' : 'revert'} migration ${file}: ${typeof said === 'string' ? said : cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'MigrationFailed';
  }
}

/** The migration files of `dir` in name order (byte order, as PocketBase sorts them); none when it does not exist. */
export async function listMigrationFiles(dir: string): Promise<MigrationFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .filter((n) => n.endsWith('.js') && !n.startsWith('.'))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((file) => ({ file, path: join(dir, file) }));
}

/** The applied migrations, last applied first (as PocketBase orders them for `down`). */
export async function appliedMigrations(store: Store): Promise<{ file: string; applied: number }[]> {
  const rows = await store.all<{ file: string; applied: number | string }>('SELECT "file", "applied" FROM "_migrations"');
  return rows
    .map((r) => ({ file: String(r.file), applied: Number(r.applied) }))
    .sort((a, b) => b.applied - a.applied || (a.file < b.file ? 1 : a.file > b.file ? -1 : 0));
}

const isApplied = async (tx: WriteTx, file: string) => (await tx.get('SELECT 1 AS "one" FROM "_migrations" WHERE "file" = ?', [file])) !== undefined;

/**
 * Runs `direction` of `file` in a transaction of its own. Answers false when another node did it
 * meanwhile (the file is applied for `up`, or no longer applied for `down`).
 */
async function runOne(deps: MigrationDeps, file: MigrationFile, direction: Direction, now: () => number): Promise<boolean> {
  const { store, registry, host } = deps;
  const report = deps.report ?? ((error: unknown) => console.error(error));
  const staged: Staged = { afterCommit: [], afterRollback: [] };
  let ran = false;
  try {
    await store.write(async (tx) => {
      if (store.dialect === 'postgres') await tx.run(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
      if ((await isApplied(tx, file.file)) !== (direction === 'down')) return;
      await host.run(tx, file, direction, staged);
      if (direction === 'up') await tx.run('INSERT INTO "_migrations" ("file", "applied") VALUES (?, ?)', [file.file, now() * 1000]);
      else await tx.run('DELETE FROM "_migrations" WHERE "file" = ?', [file.file]);
      ran = true;
    });
  } catch (err) {
    // the schema changes the file made in memory went with the transaction
    await registry.load(store);
    await settle(staged.afterRollback, report);
    throw err instanceof MigrationFailed ? err : new MigrationFailed(file.file, direction, err);
  }
  await settle(staged.afterCommit, report);
  return ran;
}

/** Applies every file of `files` not applied yet, in order; answers the names applied. Stops at the first that fails (MigrationFailed). */
export async function migrateUp(deps: MigrationDeps, files: MigrationFile[], now: () => number = Date.now): Promise<string[]> {
  const done = new Set((await appliedMigrations(deps.store)).map((m) => m.file));
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file.file)) continue;
    if (await runOne(deps, file, 'up', now)) applied.push(file.file);
  }
  return applied;
}

/** The last `count` applied migrations that have a file, last applied first (what `down` reverts). */
export async function lastApplied(store: Store, files: MigrationFile[], count: number): Promise<MigrationFile[]> {
  const byName = new Map(files.map((f) => [f.file, f]));
  return (await appliedMigrations(store)).flatMap((m) => byName.get(m.file) ?? []).slice(0, Math.max(0, count));
}

/** Reverts the last `count` applied migrations, last first, each in its own transaction; answers the names reverted. */
export async function migrateDown(deps: MigrationDeps, files: MigrationFile[], count: number): Promise<string[]> {
  const reverted: string[] = [];
  for (const file of await lastApplied(deps.store, files, count)) {
    if (await runOne(deps, file, 'down', Date.now)) reverted.push(file.file);
  }
  return reverted;
}
