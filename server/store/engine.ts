// The Store: reads straight from the in-memory database, writes through one synchronous transaction
// whose statements are journaled, checkpoints that snapshot the database without stopping writes.
//
// A failed append (ENOSPC, EIO, ...) cannot be undone in memory: the transaction committed before the
// append started, and later writes may already build on it. So the failed write and everything queued
// behind it reject with the disk's error (its `code` kept), new writes wait, and the store reloads
// snapshot + journal from disk, cut back to the last durable entry: memory then holds exactly what was
// acknowledged. If even that fails (a read-only folder), memory is reloaded read-only from the disk so
// reads go on, writes reject, and a later write (at most once a second) tries the full reload again.
import type { Database, SqlJsStatic } from 'sql.js';
import type { Row } from '../model/types.js';
import { StatementEncoder } from './codec.js';
import type { ReadDb, SqlFunction, Store, StoreStats, WriteTx } from './contract.js';
import { inspectDatabase } from './restore.js';
import { Deadlines } from './deadline.js';
import type { Params } from './statements.js';
import { asError, errorCode } from '../durable-files.js';
import type { JournalCounters, JournalWriter } from './journal.js';
import { removeSegmentsBefore, segmentPath, snapshotIdInSlices } from './journal-format.js';
import type { DirLock } from './lock.js';
import { cutSegment, loadReadOnly, loadState } from './recovery.js';
import type { LoadedState } from './recovery.js';
import { writeSnapshot } from './snapshot.js';
import { queryAll, queryGet, StatementCache } from './statements.js';
import { textBinder } from './text-binding.js';
import { runTransaction } from './transaction.js';

export interface EngineConfig {
  SQL: SqlJsStatic;
  checkpointBytes: number;
  onBackgroundError: (error: Error) => void;
  log: (line: string) => void;
  /** SQLite's max_page_count, in bytes: a write that would grow the database past it fails (SQLITE_FULL). */
  maxDatabaseBytes: number;
}

interface Durable {
  dir: string;
  lock: DirLock;
  counters: JournalCounters;
  journal: JournalWriter;
  keptAside: string[];
}

export class Engine implements Store {
  readonly dir: string | null;
  readonly keptAside: readonly string[];
  private cache: StatementCache;
  private checkpoints = 0;
  /** Transactions in memory but not in the snapshot on disk: a checkpoint with none has nothing to do. */
  private unsnapshotted: number;
  private inWrite = false;
  private closing: Promise<void> | null = null;
  private recovering: Promise<void> | null = null;
  private reloadListeners: (() => void)[] = [];
  private broken: Error | null = null;
  /** While broken: the failed segment's last durable byte, the disk's first error, the last retry. */
  private stopped: { seq: number; size: number; cause: Error; retried: number } | null = null;
  /** Serialises checkpoints and recoveries. */
  private maintenance: Promise<unknown> = Promise.resolve();
  private autoCheckpoint = { running: false, atSize: 0 };
  private readonly deadlines = new Deadlines();
  /** SQL functions defined by core, installed again on every database a reload brings. */
  private readonly functions = new Map<string, SqlFunction>();

  constructor(
    private readonly config: EngineConfig,
    private db: Database,
    private readonly durable: Durable | null,
    private readonly replayed = 0,
  ) {
    this.dir = durable?.dir ?? null;
    this.keptAside = durable?.keptAside ?? [];
    limitSize(db, config.maxDatabaseBytes);
    this.cache = new StatementCache(db, textBinder(this.config.SQL, db));
    this.unsnapshotted = replayed;
    this.autoCheckpoint.atSize = config.checkpointBytes;
  }

  private readonly rowRead = (bytes: number): void => this.deadlines.rowRead(bytes);

  all = <T = Row>(sql: string, params?: Params): T[] => this.deadlines.within(() => queryAll<T>(this.cache, sql, params, this.rowRead));

  get = <T = Row>(sql: string, params?: Params): T | undefined => this.deadlines.within(() => queryGet<T>(this.cache, sql, params, this.rowRead));

  withDeadline = <T>(ms: number, fn: () => T, readBytes?: number): T => this.deadlines.run(ms, fn, readBytes);

  checkDeadline = this.deadlines.check;

  defineFunction = (name: string, fn: SqlFunction): void => {
    this.functions.set(name, fn);
    this.db.create_function(name, fn);
  };

  write = async <T>(fn: (tx: WriteTx) => T): Promise<T> => {
    while (this.recovering) await this.recovering;
    if (this.stopped) await this.retryWritable(this.stopped);
    this.assertWritable();
    if (this.inWrite) throw new Error('write() cannot be called inside another write() transaction');
    const journal = this.durable?.journal ?? null;
    const encoder = journal ? new StatementEncoder() : null;
    this.inWrite = true;
    let result: T;
    try {
      result = this.deadlines.within(() => runTransaction(this.db, this.cache, fn, encoder));
    } finally {
      this.inWrite = false;
    }
    if (journal === null || encoder === null || encoder.statementCount === 0) return result;
    this.unsnapshotted++;
    try {
      await journal.append(encoder.finish());
    } catch (err) {
      // the caller hears of the refusal once memory is back to what the disk holds, so that its next
      // read does not show the write it was told failed
      while (this.recovering) await this.recovering;
      throw err;
    }
    this.maybeCheckpoint(journal);
    return result;
  };

  // export() sees exactly the committed transactions (writes are synchronous, none is half-done)
  backup = (): Uint8Array => this.db.export();

  onReload = (listener: () => void): void => {
    this.reloadListeners.push(listener);
  };

  checkpoint = async (): Promise<void> => {
    if (this.inWrite) throw new Error('checkpoint() cannot run inside a write() transaction');
    if (this.durable !== null) await this.exclusive(() => this.runCheckpoint());
  };

  close = (): Promise<void> => {
    this.closing ??= this.shutdown();
    return this.closing;
  };

  stats = (): StoreStats => ({
    entries: this.durable?.counters.entries ?? 0,
    syncs: this.durable?.counters.syncs ?? 0,
    journalBytes: this.durable?.counters.bytes ?? 0,
    journalSize: this.durable?.journal.activeSize ?? 0,
    checkpoints: this.checkpoints,
    replayed: this.replayed,
  });

  replaceFromDisk = async (swap: () => Promise<void>): Promise<void> => {
    const durable = this.durable;
    if (durable === null) throw new Error('an in-memory store has no folder to restore into');
    while (this.recovering) await this.recovering;
    this.assertWritable();
    // writes wait on `recovering` from here until memory holds the restored data
    this.recovering = this.exclusive(async () => {
      await durable.journal.drain();
      await swap();
      await durable.journal.close();
      this.swap(await loadState(this.config.SQL, durable.dir, durable.counters, this.onJournalFailure, this.config.log));
      for (const listener of this.reloadListeners) listener();
    }).finally(() => {
      this.recovering = null;
    });
    await this.recovering;
  };

  inspect = (bytes: Buffer): ReadDb & { close(): void } => inspectDatabase(this.config.SQL, bytes);

  /** Installed as the journal's failure hook: runs synchronously, before any write hears of it. */
  onJournalFailure = (error: Error): void => {
    const durable = this.durable;
    if (durable === null || this.recovering) return;
    const failed = durable.journal;
    this.recovering = this.exclusive(async () => {
      try {
        await failed.afterFailure();
        await failed.close();
        this.swap(await loadState(this.config.SQL, durable.dir, durable.counters, this.onJournalFailure, this.config.log));
        for (const listener of this.reloadListeners) listener();
      } catch (err) {
        await failed.close().catch(() => undefined);
        this.broken = brokenError(error, asError(err));
        this.stopped = { seq: failed.activeSeq, size: failed.activeSize, cause: error, retried: Date.now() };
        await this.reloadReadOnly(this.stopped);
      }
    }).finally(() => {
      this.recovering = null;
    });
  };

  /** Memory must not show what the disk refused: reload what the disk holds, writing nothing. */
  private async reloadReadOnly(at: { seq: number; size: number }): Promise<void> {
    if (this.durable === null) return;
    try {
      const loaded = await loadReadOnly(this.config.SQL, this.durable.dir, at);
      this.replaceDb(loaded.db, loaded.replayed);
      for (const listener of this.reloadListeners) listener();
    } catch {
      // the disk cannot even be read: memory stays as it is, and writes keep being refused
    }
  }

  /** A stopped store tries the full reload again (the folder may be writable again), at most once a second. */
  private async retryWritable(stopped: NonNullable<Engine['stopped']>): Promise<void> {
    const durable = this.durable;
    if (durable === null || this.closing || Date.now() - stopped.retried < 1000) return;
    stopped.retried = Date.now();
    this.recovering = this.exclusive(async () => {
      try {
        await cutSegment(segmentPath(durable.dir, stopped.seq), stopped.size);
        this.swap(await loadState(this.config.SQL, durable.dir, durable.counters, this.onJournalFailure, this.config.log));
        this.broken = null;
        this.stopped = null;
        for (const listener of this.reloadListeners) listener();
      } catch (err) {
        this.broken = brokenError(stopped.cause, asError(err));
      }
    }).finally(() => {
      this.recovering = null;
    });
    await this.recovering;
  }

  /**
   * `export()` is synchronous, so it sees exactly the transactions committed so far. The journal starts
   * a new segment after the entries of those transactions are durable; later writes go to the new
   * segment while the snapshot is written, and only then are the old segments deleted.
   */
  private async runCheckpoint(): Promise<void> {
    if (this.broken) throw this.broken;
    const durable = this.durable;
    if (durable === null || this.unsnapshotted === 0) return;
    const included = this.unsnapshotted;
    const bytes = this.db.export();
    // rotated now, so that writes made while the checksum is computed go to the new segment
    const seq = await durable.journal.rotate(snapshotIdInSlices(bytes));
    await writeSnapshot(durable.dir, bytes);
    this.unsnapshotted -= included;
    this.checkpoints++;
    await removeSegmentsBefore(durable.dir, seq);
  }

  /** Automatic checkpoints run in the background once the active segment passes the threshold. */
  private maybeCheckpoint(journal: JournalWriter): void {
    const auto = this.autoCheckpoint;
    if (this.closing || auto.running || journal.activeSize < auto.atSize) return;
    auto.running = true;
    this.checkpoint()
      .then(
        () => (auto.atSize = this.config.checkpointBytes),
        (err: unknown) => {
          // Retry only after another threshold's worth of journal, not on every write.
          auto.atSize = journal.activeSize + this.config.checkpointBytes;
          this.config.onBackgroundError(asError(err));
        },
      )
      .finally(() => (auto.running = false));
  }

  private async shutdown(): Promise<void> {
    while (this.recovering) await this.recovering;
    await this.durable?.journal.drain();
    let failure: Error | null = null;
    if (this.durable !== null && this.broken === null) {
      await this.exclusive(() => this.runCheckpoint()).catch((err: unknown) => (failure = asError(err)));
    }
    await this.durable?.journal.close().catch(() => undefined);
    this.cache.clear();
    this.db.close();
    await this.durable?.lock.release();
    if (failure !== null) throw failure;
  }

  private swap(loaded: LoadedState): void {
    if (this.durable === null) return;
    this.replaceDb(loaded.db, loaded.replayed);
    this.durable.journal = loaded.journal;
  }

  private replaceDb(db: Database, replayed: number): void {
    this.cache.clear();
    this.db.close();
    this.db = db;
    limitSize(db, this.config.maxDatabaseBytes);
    for (const [name, fn] of this.functions) db.create_function(name, fn);
    this.cache = new StatementCache(db, textBinder(this.config.SQL, db));
    this.unsnapshotted = replayed;
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.maintenance.then(task, task);
    this.maintenance = run.catch(() => undefined);
    return run;
  }

  private assertWritable(): void {
    if (this.closing) throw new Error('the store is closed');
    if (this.broken) throw this.broken;
  }
}

/**
 * Caps the database's size after it is loaded (a replay must never fail on it): past the cap, writes
 * that need more pages fail with SQLITE_FULL, while deletes and updates in place go on. A checkpoint
 * copies the whole database synchronously (sql.js's export(), its time in proportion to the size),
 * and the database lives in sql.js's memory twice while it does, so the cap bounds both.
 */
function limitSize(db: Database, maxBytes: number): void {
  if (!Number.isFinite(maxBytes)) return;
  const pageSize = Number(db.exec('PRAGMA page_size')[0].values[0][0]);
  db.run(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxBytes / pageSize))}`);
}

function brokenError(cause: Error, reloadError: Error): Error {
  const error: Error & { code?: string } = new Error(
    `the store stopped after a failed journal write (${cause.message}) and could not reload from disk ` +
      `(${reloadError.message}); writes are refused until the data folder can be written again`,
    { cause },
  );
  error.code = errorCode(cause);
  return error;
}
