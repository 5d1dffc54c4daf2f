// The store's interface, and `openStore`. The database lives in memory (sql.js); durability comes from
// the journal (docs/architecture.md, "The store"). Every call is asynchronous; every write runs through
// `write()`, which runs a function (that may await) in one transaction, one writer at a time, records each
// statement with its bound parameters, and resolves only once the journal entry is synced. The other files of server/store/ are
// its parts: contract.ts (the interfaces), engine.ts (the Store), journal*.ts, codec.ts, snapshot.ts, recovery.ts, lock.ts.
import { mkdir } from 'node:fs/promises';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';
import type { Store } from './contract.js';
import { Engine, fileCapacity } from './engine.js';
import type { JournalCounters, JournalOptions } from './journal.js';
import { listKeptAside } from './journal-format.js';
import { lockDir } from './lock.js';
import { loadState, openDatabase } from './recovery.js';
import { finishRestore } from './restore.js';
import { describeWritingObjects, dropStatement, writingSchemaObjects } from './statements.js';
import type { WritingSchemaObject } from './statements.js';

// The interfaces live in contract.ts so the engine can implement them without importing this module.
export type { BusEntry, BusListener, ReadDb, Store, StoreBus, StoreStats, WriteTx } from './contract.js';
export { QueryBudget } from './deadline.js';

/**
 * sql.js's module. This file keeps no copy: sql.js itself compiles its WebAssembly once per process and
 * answers every later call with the same module (sql-wasm.js, `initSqlJsPromise`), in which each store
 * opens its own database.
 */
export function loadSqlJs(): Promise<SqlJsStatic> {
  // native SQLite math functions instead of sql.js's deprecated JavaScript ones (which warn on each call)
  return initSqlJs({ useOldExtensionFunctions: false } as Parameters<typeof initSqlJs>[0]);
}

export interface StoreOptions {
  /** Data folder; null keeps everything in memory (tests). Created if missing. */
  dir: string | null;
  /**
   * Size of the active journal segment (bytes) past which a checkpoint runs in the background, after
   * the write that crossed it. Default 64 MiB.
   */
  checkpointBytes?: number;
  /** Hears of background checkpoints that failed (the journal still holds everything). Default: stderr. */
  onBackgroundError?: (error: Error) => void;
  /** Human-readable notices (a damaged journal tail kept aside on open). Default: stderr. */
  log?: (line: string) => void;
  /**
   * The largest the database may grow; writes that would pass it fail ("database or disk is full",
   * which the HTTP layer answers with a 507). Default DEFAULT_MAX_DATABASE_BYTES.
   */
  maxDatabaseBytes?: number;
  /**
   * How long a read from outside a write transaction waits for it before failing as a read made from
   * inside it through the store instead of its tx (ms). Default DEFAULT_LOCK_WAIT_MS.
   */
  lockWaitMs?: number;
  /**
   * Commits acknowledged once written to the journal, not synced each: the journal is synced in the
   * background at most this long (ms) after a write, before a checkpoint's rotation and at close
   * (journal.ts). A process crash loses nothing committed; a machine crash (power, kernel) the commits
   * of the last `syncEveryMs` at most, newest first, never the database. For the logs' own store
   * (logs/index.ts); undefined (the data's) syncs every group commit before acknowledging it.
   */
  syncEveryMs?: number;
  /** How the journal writes its groups: for tests that stage a failed write (journal.ts JournalOptions). */
  journal?: JournalOptions;
}

/** 10 s: a desktop transaction lasts milliseconds; a read waiting this long is waiting for itself. */
export const DEFAULT_LOCK_WAIT_MS = 10_000;

/**
 * 4 GiB: the largest in-memory file sql.js can keep (one typed array, 2^32 bytes on Node 20). A loaded
 * database's file gets that room once (snapshot.ts `withCapacity`; untouched room costs no memory), so
 * a write that grows it copies nothing; a checkpoint writes its copy to disk as it is made
 * (export.ts `exportToFile`), so it never holds the database twice. Measured with
 * bench/big-database.ts at 1 and 3 GiB (README, "Reliability"). Still whole in memory: a start-up
 * loads the file, a backup download copies it (twice the database while it runs).
 */
export const DEFAULT_MAX_DATABASE_BYTES = 4 * 1024 * 1024 * 1024;

export const DEFAULT_CHECKPOINT_BYTES = 64 * 1024 * 1024;

/**
 * Opens the store. With a folder: takes its lock file, loads `data.db`, replays the journal (dropping a
 * torn tail) and keeps appending to it. Rejects, naming the file, when the snapshot or the journal is
 * damaged beyond a torn tail, or when another process holds the folder.
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  const SQL = await loadSqlJs();
  const config = {
    SQL,
    checkpointBytes: options.checkpointBytes ?? DEFAULT_CHECKPOINT_BYTES,
    onBackgroundError:
      options.onBackgroundError ?? ((error: Error) => console.error(`store: background checkpoint failed: ${error.message}`)),
    log: options.log ?? ((line: string) => console.error(line)),
    maxDatabaseBytes: options.maxDatabaseBytes ?? DEFAULT_MAX_DATABASE_BYTES,
    lockWaitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
    syncEveryMs: options.syncEveryMs,
    journal: options.journal,
  };
  const dir = options.dir;
  if (dir === null) return new Engine(config, openDatabase(SQL, null, ':memory:'), null);
  await mkdir(dir, { recursive: true });
  const lock = await lockDir(dir);
  try {
    await finishRestore(dir); // a restore a crash interrupted rolls forward (or its staging goes)
    const counters: JournalCounters = { entries: 0, syncs: 0, bytes: 0 };
    // The journal reports failures to the engine, which does not exist yet (no append can fail before).
    let engine: Engine | null = null;
    const loaded = await loadState(SQL, dir, counters, (error) => engine?.onJournalFailure(error), config.log, fileCapacity(config.maxDatabaseBytes), { ...config.journal, syncEveryMs: config.syncEveryMs });
    const keptAside = await listKeptAside(dir);
    const writing = writingSchemaObjects(loaded.db);
    engine = new Engine(config, loaded.db, { dir, lock, counters, journal: loaded.journal, keptAside }, loaded.replayed);
    if (writing.length > 0) await dropWritingObjects(engine, writing, config.log);
    return engine;
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/**
 * A folder whose database holds a view or trigger running pragma_optimize (statements.ts
 * `writingSchemaObjects`: from an archive restored before restores refused it, or written by another
 * tool) is opened with them dropped, in one journaled write, each one's SQL logged so that its owner can
 * make it again without pragma_optimize: reading such a view changed memory without a journal entry.
 * They hold no data. Fails (the folder is not opened) only if they cannot be dropped.
 */
async function dropWritingObjects(store: Store, objects: readonly WritingSchemaObject[], log: (line: string) => void): Promise<void> {
  try {
    await store.write(async (tx) => {
      for (const object of objects) await tx.run(dropStatement(object));
    });
  } catch (err) {
    throw new Error(`data.db holds ${describeWritingObjects(objects)} running pragma_optimize, which Deskbase cannot run (it writes what the journal does not replay), and dropping ${objects.length > 1 ? 'them' : 'it'} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  for (const object of objects) {
    log(`store: dropped ${object.type} "${object.name}": it ran pragma_optimize, which writes statistics the journal does not replay (use PRAGMA optimize). Its SQL was: ${object.sql}`);
  }
}
