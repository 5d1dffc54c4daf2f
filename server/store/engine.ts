// The Store: reads from the in-memory database, writes through one transaction at a time whose
// statements are journaled, checkpoints that snapshot the database without stopping writes.
//
// sql.js has one connection, and a write's function may await inside its transaction. So writes take
// turns (`turn`: a queue, released at COMMIT or ROLLBACK, before the journal sync, so that several
// transactions still share one sync), and a read from outside waits while a transaction is open (the
// gate) rather than see its uncommitted rows. A read or write through the store from inside a
// transaction would wait for itself: during the function's synchronous start it fails at once, later it
// fails once it has waited `lockWaitMs` for that transaction (a desktop transaction lasts milliseconds). Checkpoints, backups, restores and
// reloads take the same turn, so none of them ever sees or replaces a database mid-transaction. A
// snapshot or backup holds the turn too: a write, snapshot, backup or checkpoint started from inside its
// function (not through the reader it is handed) fails once the holder has read nothing for lockWaitMs.
//
// A failed append (ENOSPC, EIO, ...) cannot be undone in memory: the transaction committed before the
// append started, and later writes may already build on it. So the failed write and everything queued
// behind it reject with the disk's error (its `code` kept), new writes wait, and the store reloads
// snapshot + journal from disk, cut back to the last durable entry: memory then holds exactly what was
// acknowledged. If even that fails (a read-only folder), memory is reloaded read-only from the disk so
// reads go on, writes reject, and a later write (at most once a second) tries the full reload again.
import type { Database, SqlJsStatic } from 'sql.js';
import type { Row } from '../model/types.js';
import type { QueryBudget } from './deadline.js';
import { StatementEncoder } from './codec.js';
import type { ReadDb, SqlFunction, Store, StoreStats, WriteTx } from './contract.js';
import { inspectDatabase } from './restore.js';
import { Deadlines } from './deadline.js';
import type { Params } from './statements.js';
import { asError, errorCode } from '../durable-files.js';
import { ApiError } from '../errors.js';
import type { JournalCounters, JournalOptions, JournalWriter } from './journal.js';
import { TableVersions } from './table-versions.js';
import { frameEntryInSlices, removeSegmentsBefore, segmentPath, snapshotIdInSlices } from './journal-format.js';
import type { SnapshotId } from './journal-format.js';
import type { DirLock } from './lock.js';
import { cutSegment, loadReadOnly, loadState, LONG_WRITE_CACHE_PRAGMA, openDatabase, PAGE_CACHE_PRAGMA } from './recovery.js';
import type { LoadedState } from './recovery.js';
import { MAX_FILE_CAPACITY, openSnapshotWriter, writeSnapshot } from './snapshot.js';
import { exportInSlices, exportToFile } from './export.js';
import { LoopSlice } from '../loop-slice.js';
import { queryAll, queryGet, StatementCache } from './statements.js';
import { textBinder } from './text-binding.js';
import { ANY_TRIGGER, recordingTx, runTransaction } from './transaction.js';
import type { OpenTx } from './transaction.js';

export interface EngineConfig {
  SQL: SqlJsStatic;
  checkpointBytes: number;
  onBackgroundError: (error: Error) => void;
  log: (line: string) => void;
  /** SQLite's max_page_count, in bytes: a write that would grow the database past it fails (SQLITE_FULL). */
  maxDatabaseBytes: number;
  /** How long a read waits for an open transaction before it fails as a read from inside it (ms). */
  lockWaitMs: number;
  /** How the journal writes its groups (tests stage failed writes: journal.ts JournalOptions). */
  journal?: JournalOptions;
  /** The journal's sync (StoreOptions.syncEveryMs): undefined syncs every group commit. */
  syncEveryMs?: number;
}

/** A journal entry at least this large is framed in slices (journal-format.ts `frameEntryInSlices`). */
const LARGE_ENTRY_BYTES = 4 * 1024 * 1024;

/** How long a write transaction runs before it counts as long (see `write`): ms. */
const LONG_WRITE_MS = 50;

/**
 * An open transaction, as those waiting for it see it (or a snapshot or backup holding the turn:
 * `Engine.reading`). Nothing is made for a transaction nobody waits for; the first waiter makes the
 * promise and starts the one timer past which the waiters fail (`refusal`: what they fail with).
 */
class Gate {
  private waiting: { ended: Promise<void>; end: () => void; fail: (error: Error) => void } | null = null;
  /** The database as committed before this transaction, where reads from outside go meanwhile (`keepReadsGoing`). */
  copy: ReaderCopy | null = null;
  private copied: { ready: Promise<ReaderCopy>; resolve: (copy: ReaderCopy) => void } | null = null;

  /** Resolves when a copy for readers is made (never, if none is). */
  copyReady(): Promise<ReaderCopy> {
    if (this.copy !== null) return Promise.resolve(this.copy);
    if (this.copied === null) {
      let resolve!: (copy: ReaderCopy) => void;
      const ready = new Promise<ReaderCopy>((r) => (resolve = r));
      this.copied = { ready, resolve };
    }
    return this.copied.ready;
  }
  private timer: NodeJS.Timeout | null = null;
  /** When the transaction last ran a statement. */
  private active = performance.now();

  constructor(private readonly waitMs: number, private readonly refusal: (waitedMs: number) => Error = insideWrite) {}

  /** The transaction ran a statement: it is working, not waiting for a read made from inside it. */
  touch(): void {
    this.active = performance.now();
  }

  /**
   * Resolves when the transaction ends; rejects (insideWrite) once the transaction has run no
   * statement for waitMs while waited for. A long transaction that keeps working (an import that lets
   * the loop turn between its statements) is waited for however long it takes.
   */
  wait(): Promise<void> {
    if (this.waiting === null) {
      let end!: () => void;
      let fail!: (error: Error) => void;
      const ended = new Promise<void>((resolve, reject) => {
        end = resolve;
        fail = reject;
      });
      ended.catch(() => undefined);
      this.waiting = { ended, end, fail };
      const check = (): void => {
        const idle = performance.now() - this.active;
        if (idle >= this.waitMs) fail(this.refusal(this.waitMs));
        else this.timer = setTimeout(check, this.waitMs - idle);
      };
      this.touch();
      this.timer = setTimeout(check, this.waitMs);
    }
    return this.waiting.ended;
  }

  /** The copy for readers is ready: those waiting now try again (and read it). */
  wake(copy: ReaderCopy): void {
    this.copy = copy;
    this.copied?.resolve(copy);
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.waiting?.end();
    this.waiting = null;
  }

  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.waiting?.end();
    this.copy?.retire();
  }
}

/**
 * A copy of the database as committed when a long write began (`WriteTx.keepReadsGoing`): reads from
 * outside run on it while the write's transaction is open, and a snapshot begun on it reads it to its
 * end. Closed once the transaction has ended and no snapshot uses it.
 */
class ReaderCopy {
  private users = 0;
  private retired = false;
  private closed = false;

  constructor(readonly db: Database, readonly cache: StatementCache) {}

  /** A reader reads it from now (`readerTurn`) until it gives it back (`release`). */
  held(): this {
    this.users++;
    return this;
  }

  release(): void {
    this.users--;
    this.closeIfDone();
  }

  retire(): void {
    this.retired = true;
    this.closeIfDone();
  }

  private closeIfDone(): void {
    if (!this.retired || this.users > 0 || this.closed) return;
    this.closed = true;
    this.cache.clear();
    this.db.close();
  }
}

/** The largest database copied for readers during a long write: past it, reads wait for its end as before. */
const READER_COPY_MAX_BYTES = 512 * 1024 * 1024;

interface Durable {
  dir: string;
  lock: DirLock;
  counters: JournalCounters;
  journal: JournalWriter;
  keptAside: string[];
}

/**
 * The reads of one budget (`store.reader`): methods, not closures made per reader (each named closure
 * made per request costs a defineProperty under tsx's keepNames, a few µs per read in all).
 */
class BudgetReader implements ReadDb {
  /** `inTurn`: the reads of a snapshot or backup holding the turn (they do not wait for a reload: `readerTurn`). */
  constructor(private readonly engine: Engine, private readonly budget: QueryBudget | null, private readonly inTurn = false) {}

  all<T = Row>(sql: string, params?: Params): Promise<T[]> {
    return this.engine.readUnder<T[]>(this.budget, false, sql, params, this.inTurn);
  }

  get<T = Row>(sql: string, params?: Params): Promise<T | undefined> {
    return this.engine.readUnder<T | undefined>(this.budget, true, sql, params, this.inTurn);
  }
}

export class Engine implements Store {
  readonly dir: string | null;
  readonly keptAside: readonly string[];
  private cache: StatementCache;
  private checkpoints = 0;
  /** Transactions in memory but not in the snapshot on disk: a checkpoint with none has nothing to do. */
  private unsnapshotted: number;
  /** The end of the last turn handed out: writes, checkpoints, backups and reloads queue behind it. */
  private turns: Promise<void> = Promise.resolve();
  /** While a transaction is open: what reads from outside wait for. */
  private gate: Gate | null = null;
  /**
   * While a snapshot or backup holds the turn (`readerTurn`): what a write, snapshot, backup or
   * checkpoint waiting for the turn is bound to. One started from inside the holder's function (not
   * through the reader it is handed: a hook's `$app.save` inside a record's answer) would wait for
   * the turn its caller holds for ever; it fails once the holder has read nothing for lockWaitMs
   * (its reads and a backup's export slices count), as a wait for a transaction does (`Gate`).
   */
  private reading: Gate | null = null;
  /** What holds the turn now and bounds a wait for it: an open transaction, or a snapshot or backup. */
  private get holder(): Gate | null {
    return this.gate ?? this.reading;
  }
  /** A write function's synchronous start is running: a read through the store now is one from inside it. */
  private starting = false;
  private closing: Promise<void> | null = null;
  private recovering: Promise<void> | null = null;
  private reloadListeners: (() => void | Promise<void>)[] = [];
  private broken: Error | null = null;
  /**
   * From a failed journal write until memory is reloaded from disk: memory still holds the writes being
   * rejected, so reads from outside wait for the reload (`read`; snapshots and backups: `readerTurn`),
   * and fail with the store's error if memory cannot be reloaded at all. Set synchronously, before any
   * write hears of its failure.
   */
  private ahead: { reloaded: Promise<void>; done: () => void; fail: (error: Error) => void } | null = null;
  /**
   * Snapshots and backups holding the turn (they started before any failure now `ahead`): the reload
   * waits for them, so a read they await through the store itself (a hook's $app read inside a record's
   * answer) waits for the reload for lockWaitMs at most (`afterReload`), not for ever.
   */
  private readerTurns = 0;
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
    this.tables.replaced(0, hasTriggers(db));
  }

  private readonly rowRead = (bytes: number): void => this.deadlines.rowRead(bytes);

  /** Write transactions ended and databases replaced so far (Store.version). */
  private commits = 0;

  get version(): number {
    return this.commits;
  }

  /** Which tables each committed write changed (Store.tablesVersion). */
  private readonly tables = new TableVersions();

  tablesVersion = (tables: readonly string[]): number => this.tables.of(tables);

  rowsVersion = (tables: readonly string[]): number => this.tables.rowsOf(tables);

  versionExcept = (tables: readonly string[]): number => this.tables.except(tables);

  all = <T = Row>(sql: string, params?: Params): Promise<T[]> => this.read(null, (cache) => queryAll<T>(cache, sql, params, this.rowRead));

  get = <T = Row>(sql: string, params?: Params): Promise<T | undefined> => this.read(null, (cache) => queryGet<T>(cache, sql, params, this.rowRead));

  reader = (budget: QueryBudget): ReadDb => new BudgetReader(this, budget);

  /** One read under `budget` (BudgetReader's): a row (`one`) or all of them. */
  readUnder<T>(budget: QueryBudget | null, one: boolean, sql: string, params: Params | undefined, inTurn = false): Promise<T> {
    return this.read(budget, (cache) => (one ? queryGet(cache, sql, params, this.rowRead) : queryAll(cache, sql, params, this.rowRead)) as T, inTurn);
  }

  // in a turn of its own: no transaction opens (and none is open) while `fn` reads; while a long write
  // keeps reads going, on its copy of the committed data, to the end of `fn`
  snapshot = <T>(fn: (db: ReadDb) => Promise<T>, budget?: QueryBudget): Promise<T> => this.readerTurn(fn, budget ?? null, true);

  /**
   * The one way a reader holding one state to its end (a snapshot, a backup) starts: `fn` in the turn,
   * or with `copies` on a long write's copy for readers (`turnOrCopy`), taken after any reload. What
   * it takes once a failed journal write is known (`ahead`: memory, and any copy made of it, may hold
   * what is being rejected) is given back: the turn until memory is reloaded, a copy for the turn, whose
   * wait the open transaction bounds (the reload waits for that transaction too). Once `fn` runs, its
   * reads go on whatever fails meanwhile (the reload waits for the turn they hold): one state, committed
   * before the failure was known, as a read that ended just before it would have. A turn counts in
   * `readerTurns` while `fn` runs (`afterReload`).
   */
  private async readerTurn<T>(fn: (db: ReadDb) => Promise<T>, budget: QueryBudget | null, copies: boolean): Promise<T> {
    let held = await this.turnOrCopy(copies);
    while (this.ahead !== null) {
      if (held instanceof ReaderCopy) {
        held.release();
        held = await this.turn(this.holder);
      } else {
        held();
        await this.afterReload();
        held = await this.turnOrCopy(copies);
      }
    }
    if (held instanceof ReaderCopy) {
      try {
        return await fn(this.copyReader(held, budget));
      } finally {
        held.release();
      }
    }
    this.readerTurns++;
    const hold = (this.reading = new Gate(this.config.lockWaitMs, insideReader));
    try {
      return await fn(new BudgetReader(this, budget, true));
    } finally {
      this.readerTurns--;
      this.reading = null;
      hold.close();
      held();
    }
  }

  /**
   * Waits for the turn, bound to the transaction open now (turn()); resolves with its release. With
   * `copies`, while that transaction is a long write keeping reads going, its copy for readers instead
   * if it comes first (held: `ReaderCopy.held`), and the turn, when it comes, is passed on at once.
   */
  private turnOrCopy(copies: boolean): Promise<(() => void) | ReaderCopy> {
    const gate = this.gate;
    if (!copies || gate === null) return this.turn(this.holder);
    if (gate.copy !== null) return Promise.resolve(gate.copy.held());
    return new Promise((resolve, reject) => {
      let settled = false;
      const turn = this.turn(gate);
      void gate.copyReady().then((copy) => {
        if (settled) return;
        settled = true; // the turn, when it comes, is passed on at once (below)
        resolve(copy.held());
      });
      turn.then(
        (release) => {
          if (settled) return release();
          settled = true;
          resolve(release);
        },
        (err: unknown) => {
          if (settled) return;
          settled = true;
          reject(err as Error);
        },
      );
    });
  }

  /** Reads of a copy for readers, whether its write has ended or not. */
  private copyReader(copy: ReaderCopy, budget: QueryBudget | null): ReadDb {
    const on = <T>(call: () => T): Promise<T> => {
      try {
        return Promise.resolve(this.deadlines.within(budget, call));
      } catch (err) {
        return Promise.reject(err as Error);
      }
    };
    return {
      all: <T = Row>(sql: string, params?: Params) => on(() => queryAll<T>(copy.cache, sql, params, this.rowRead)),
      get: <T = Row>(sql: string, params?: Params) => on(() => queryGet<T>(copy.cache, sql, params, this.rowRead)),
    };
  }

  checkDeadline = this.deadlines.charge;

  defineFunction = (name: string, fn: SqlFunction): void => {
    this.functions.set(name, fn);
    this.db.create_function(name, fn);
    this.gate?.copy?.db.create_function(name, fn);
  };

  /**
   * One read from outside any transaction: at once when none is open, else on the copy a long write
   * made for readers, else once the transaction ends.
   */
  private read<T>(budget: QueryBudget | null, call: (cache: StatementCache) => T, inTurn = false): Promise<T> {
    if (this.starting) return Promise.reject(insideWrite());
    // an open transaction first (its wait is bounded: a read from inside it waits for itself), then a reload
    if (this.gate !== null && this.gate.copy === null) return this.gate.wait().then(() => this.read(budget, call, inTurn));
    if (this.ahead !== null && !inTurn) return this.afterReload().then(() => this.read(budget, call));
    // a snapshot or backup reading: working, not waiting for something started from inside it
    if (inTurn) this.reading?.touch();
    const cache = this.gate?.copy?.cache ?? this.cache;
    try {
      return Promise.resolve(this.deadlines.within(budget, () => call(cache)));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  /**
   * The one wait for memory to be reloaded after a failed journal write (`ahead`, set): a read's
   * (`read`) and a reader's that gave its turn back (`readerTurn`). While a snapshot or backup holds the
   * turn the reload waits for, the wait fails after lockWaitMs: the read may be one the holder itself
   * awaits, which would wait for ever (and every write with it).
   */
  private afterReload(): Promise<void> {
    const ahead = this.ahead as NonNullable<Engine['ahead']>;
    if (this.readerTurns === 0) return ahead.reloaded;
    const ms = this.config.lockWaitMs;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`a read waited ${ms} ms for memory to be reloaded after a failed journal write, and the reload waits for a snapshot or backup holding the store's turn: a read from inside one goes through the reader it is handed`)), ms);
      ahead.reloaded.then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err as Error);
        },
      );
    });
  }

  /**
   * Waits for the turn; resolves with its release. `bound`: the transaction open when the wait began;
   * if it stays open past lockWaitMs the wait fails (a write from inside it would wait for itself), and
   * the turn, once it comes, is passed on.
   */
  private turn(bound: Gate | null = null): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const before = this.turns;
    this.turns = mine;
    if (bound === null) return before.then(() => release);
    return new Promise((resolve, reject) => {
      let abandoned = false;
      void before.then(() => (abandoned ? release() : resolve(release)));
      bound.wait().catch((err: unknown) => {
        abandoned = true;
        reject(err as Error);
      });
    });
  }

  /**
   * Runs `task` in a turn of its own (no transaction open meanwhile). `bound`: as for turn(), so that a
   * checkpoint awaited from inside a transaction fails instead of waiting for itself. Readers (a
   * snapshot, a backup) take theirs through `readerTurn`.
   */
  private async inTurn<T>(task: () => T | Promise<T>, bound: Gate | null = null): Promise<T> {
    const release = await this.turn(bound);
    try {
      return await task();
    } finally {
      release();
    }
  }

  write = async <T>(fn: (tx: WriteTx) => Promise<T> | T, budget?: QueryBudget): Promise<T> => {
    if (this.starting) throw new Error('write() cannot be called inside another write() transaction');
    const release = await this.writableTurn();
    const journal = this.durable?.journal ?? null;
    const encoder = journal ? new StatementEncoder() : null;
    let result: T;
    let appended: Promise<void> | null = null;
    try {
      // A transaction still running after LONG_WRITE_MS (an import, a truncate, a table rebuilt: work
      // that lets the loop turn between its statements) gets a small page cache for the rest of it, so
      // its pages are written as it goes rather than all in the one stretch of its COMMIT.
      const began = performance.now();
      let long = false;
      let committed = false;
      const gate = this.openGate();
      const call = <R>(work: () => R): R => {
        gate.touch();
        if (!long && performance.now() - began > LONG_WRITE_MS) {
          long = true;
          this.db.run(LONG_WRITE_CACHE_PRAGMA);
        }
        return this.deadlines.within(budget, work);
      };
      try {
        const opened = recordingTx(this.db, this.cache, encoder, call, this.rowRead);
        if (journal !== null) opened.tx.keepReadsGoing = () => this.copyForReaders(gate, opened);
        result = await runTransaction(this.cache, opened, fn, call, (on) => (this.starting = on));
        committed = true;
      } finally {
        if (long) this.db.run(PAGE_CACHE_PRAGMA);
        // before any reader waiting at the gate can see the transaction's outcome (rolled back too: a
        // version that moves for nothing only costs a cache its entries)
        this.commits++;
        if (committed) this.tables.committed(this.commits, encoder === null ? null : encoder.statementTexts());
        this.closeGate();
      }
      if (journal !== null && encoder !== null && encoder.statementCount > 0) {
        this.unsnapshotted++;
        // appended in commit order (before the next writer's turn); synced after the turn is released.
        // A large entry is framed in slices, still in this turn, so the order holds.
        if (encoder.byteLength < LARGE_ENTRY_BYTES) appended = journal.append(encoder.finish());
        else {
          const slice = new LoopSlice();
          appended = journal.appendFrame(await frameEntryInSlices(encoder.parts(), () => slice.pause()));
        }
      }
    } finally {
      release();
    }
    if (appended === null || journal === null) return result;
    try {
      await appended;
    } catch (err) {
      // the caller hears of the refusal once memory is back to what the disk holds, so that its next
      // read does not show the write it was told failed
      while (this.recovering) await this.recovering;
      throw err;
    }
    this.maybeCheckpoint(journal);
    return result;
  };

  /**
   * `WriteTx.keepReadsGoing`: before the transaction changes anything, the database (as committed) is
   * copied in slices for the reads from outside (readers waiting meanwhile), which then run on it
   * until the transaction ends. Nothing is copied past READER_COPY_MAX_BYTES, once it changed something,
   * or once a failed journal write is known (`ahead`: no reader reads memory, or a copy of it, until it is
   * reloaded; readers wait for this transaction, bounded, as without a copy).
   */
  private async copyForReaders(gate: Gate, opened: OpenTx): Promise<void> {
    if (gate.copy !== null || this.gate !== gate || opened.changed() || this.ahead !== null) return;
    const size = Number(queryGet<{ s: number }>(this.cache, 'SELECT page_count * page_size AS s FROM pragma_page_count, pragma_page_size')?.s);
    if (!(size <= READER_COPY_MAX_BYTES)) return;
    const bytes = await this.exportBytes();
    // the write awaited this: nothing ran in its transaction meanwhile
    if (this.gate !== gate || opened.changed() || this.ahead !== null) return;
    const db = openDatabase(this.config.SQL, bytes as Buffer, 'the copy for readers');
    for (const [name, fn] of this.functions) db.create_function(name, fn);
    gate.wake(new ReaderCopy(db, new StatementCache(db, textBinder(this.config.SQL, db))));
  }

  /** The write turn, once no recovery or restore is under way and the store takes writes. */
  private async writableTurn(): Promise<() => void> {
    for (;;) {
      while (this.recovering) await this.recovering;
      if (this.stopped) await this.retryWritable(this.stopped);
      this.assertWritable();
      const release = await this.turn(this.holder);
      if (this.recovering === null) {
        try {
          this.assertWritable();
        } catch (err) {
          release();
          throw err;
        }
        return release;
      }
      release();
    }
  }

  private openGate(): Gate {
    this.gate = new Gate(this.config.lockWaitMs);
    return this.gate;
  }

  private closeGate(): void {
    const gate = this.gate;
    this.gate = null;
    gate?.close();
  }

  // in a turn of its own: no transaction is open, and none starts before export() has run
  backup = <T = undefined>(alongside?: (db: ReadDb) => Promise<T>): Promise<{ bytes: Uint8Array; alongside: T }> =>
    this.readerTurn(async (db) => {
      const read = alongside ? await alongside(db) : (undefined as T);
      return { bytes: await this.exportBytes(), alongside: read };
    }, null, false);

  /** The database's bytes, copied in slices (export.ts); the caller holds the turn (a backup's slices count as its reads: `reading`). */
  private exportBytes(): Promise<Uint8Array> {
    const slice = new LoopSlice();
    return exportInSlices(this.config.SQL, this.db, () => {
      this.reading?.touch();
      return slice.pause();
    });
  }

  onReload = (listener: () => void | Promise<void>): void => {
    this.reloadListeners.push(listener);
  };

  checkpoint = async (): Promise<void> => {
    if (this.starting) throw new Error('checkpoint() cannot run inside a write() transaction');
    const bound = this.holder;
    if (this.durable !== null) await this.exclusive(() => this.runCheckpoint(bound));
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
      // a transaction open now ends first; later writers see `recovering` once their turn comes, and
      // wait (the swap may take turns of its own: a backup of what it replaces)
      await this.inTurn(() => undefined);
      await durable.journal.drain();
      await swap();
      await durable.journal.close();
      this.swap(await this.loadFromDisk(durable));
      await this.heardReload();
    }).finally(() => {
      this.recovering = null;
    });
    await this.recovering;
  };

  inspect = (bytes: Buffer): Promise<ReadDb & { close(): void }> => inspectDatabase(this.config.SQL, bytes);

  /** Installed as the journal's failure hook: runs synchronously, before any write hears of it. */
  onJournalFailure = (error: Error): void => {
    const durable = this.durable;
    if (durable === null || this.recovering) return;
    const failed = durable.journal;
    this.holdReads();
    this.recovering = this.exclusive(async () => {
      try {
        await failed.afterFailure();
        await failed.close();
        // in a turn: a transaction open now ends (its append fails) before memory is replaced
        await this.inTurn(async () => this.swap(await this.loadFromDisk(durable)));
        await this.heardReload();
      } catch (err) {
        await failed.close().catch(() => undefined);
        const broken = brokenError(error, asError(err));
        this.broken = broken;
        this.stopped = { seq: failed.activeSeq, size: failed.activeSize, cause: error, retried: Date.now() };
        await this.reloadReadOnly(this.stopped);
        // memory could not be reloaded: reads fail (it may hold what the disk refused) until a write's retry reloads it
        this.ahead?.fail(broken);
      }
    }).finally(() => {
      this.recovering = null;
    });
  };

  /**
   * Memory holds writes the journal is rejecting: reads from outside wait from now until it is
   * reloaded (replaceDb), and what was kept of what they read (the versions move) is dropped.
   */
  private holdReads(): void {
    if (this.ahead !== null) return;
    let done!: () => void;
    let fail!: (error: Error) => void;
    const reloaded = new Promise<void>((resolve, reject) => {
      done = resolve;
      fail = reject;
    });
    reloaded.catch(() => undefined);
    this.ahead = { reloaded, done, fail };
    this.commits++;
    this.tables.committed(this.commits, null);
  }

  /** Tells the reload listeners, one after the other; writes wait for them (they run while `recovering` is set). */
  private async heardReload(): Promise<void> {
    for (const listener of this.reloadListeners) await listener();
    // once more when they are done: what was read meanwhile may have paired the new database with what
    // they had not caught up on yet (core's collections)
    this.commits++;
    this.tables.committed(this.commits, null);
  }

  /** Memory must not show what the disk refused: reload what the disk holds, writing nothing. */
  private async reloadReadOnly(at: { seq: number; size: number }): Promise<void> {
    if (this.durable === null) return;
    try {
      const loaded = await loadReadOnly(this.config.SQL, this.durable.dir, at, fileCapacity(this.config.maxDatabaseBytes));
      await this.inTurn(() => this.replaceDb(loaded.db, loaded.replayed));
      await this.heardReload();
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
        await this.inTurn(async () => this.swap(await this.loadFromDisk(durable)));
        this.broken = null;
        this.stopped = null;
        await this.heardReload();
      } catch (err) {
        this.broken = brokenError(stopped.cause, asError(err));
      }
    }).finally(() => {
      this.recovering = null;
    });
    await this.recovering;
  }

  /**
   * The copy is written to `data.db.tmp` as it is made (export.ts `exportToFile`), a step per turn of
   * the store, so writes commit between its steps and reads go on; its last step sees exactly the
   * transactions committed so far, and in that turn the journal starts a new segment (once the entries
   * of those transactions are durable), so later writes land there while the snapshot is synced and
   * renamed over `data.db`; only then are the old segments deleted. Where the streamed copy cannot be
   * made, the copy in memory (`exportInSlices`) in one turn, as before.
   */
  private async runCheckpoint(bound: Gate | null = null): Promise<void> {
    if (this.broken) throw this.broken;
    const durable = this.durable;
    if (durable === null || this.unsnapshotted === 0) return;
    const snapshot = await openSnapshotWriter(durable.dir);
    try {
      const slice = new LoopSlice();
      const rotation = (id: SnapshotId | Promise<SnapshotId>) => ({ included: this.unsnapshotted, rotated: durable.journal.rotate(id) });
      const streamed = await exportToFile(this.config.SQL, this.db, snapshot.file, {
        inTurn: (step) => this.inTurn(step, bound),
        pause: () => slice.pause(),
        done: rotation,
      });
      let whole: Uint8Array | null = null;
      const { included, rotated } = streamed ?? await this.inTurn(async () => {
        whole = await this.exportBytes();
        return rotation(snapshotIdInSlices(whole));
      }, bound);
      const seq = await rotated;
      if (whole === null) await snapshot.commit();
      else {
        await snapshot.discard();
        await writeSnapshot(durable.dir, whole);
      }
      this.unsnapshotted -= included;
      await removeSegmentsBefore(durable.dir, seq);
      // counted once whole, the old segments gone too (stats() read between the two saw both segments)
      this.checkpoints++;
    } catch (err) {
      await snapshot.discard();
      throw err;
    }
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
    await this.inTurn(() => {
      this.cache.clear();
      this.db.close();
    });
    await this.durable?.lock.release();
    if (failure !== null) throw failure;
  }

  /** Memory and a journal as the data folder holds them (recovery.ts). */
  private loadFromDisk(durable: Durable): Promise<LoadedState> {
    const { SQL, log, maxDatabaseBytes, journal, syncEveryMs } = this.config;
    return loadState(SQL, durable.dir, durable.counters, this.onJournalFailure, log, fileCapacity(maxDatabaseBytes), { ...journal, syncEveryMs });
  }

  private swap(loaded: LoadedState): void {
    if (this.durable === null) return;
    this.replaceDb(loaded.db, loaded.replayed);
    this.durable.journal = loaded.journal;
  }

  private replaceDb(db: Database, replayed: number): void {
    this.commits++;
    this.tables.replaced(this.commits, hasTriggers(db));
    this.cache.clear();
    this.db.close();
    this.db = db;
    limitSize(db, this.config.maxDatabaseBytes);
    for (const [name, fn] of this.functions) db.create_function(name, fn);
    this.cache = new StatementCache(db, textBinder(this.config.SQL, db));
    this.unsnapshotted = replayed;
    // memory holds what the disk holds: reads waiting for that go on
    const ahead = this.ahead;
    this.ahead = null;
    ahead?.done();
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
 * that need more pages fail with SQLITE_FULL, while deletes and updates in place go on. The database
 * lives in memory twice while a checkpoint copies it (in slices: export.ts), and sql.js's file grows by
 * copying itself, so the cap bounds both the memory and the longest such copy.
 */
function limitSize(db: Database, maxBytes: number): void {
  if (!Number.isFinite(maxBytes)) return;
  const pageSize = Number(db.exec('PRAGMA page_size')[0].values[0][0]);
  db.run(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxBytes / pageSize))}`);
}

/**
 * The room a durable database's in-memory file is given when it is loaded (snapshot.ts
 * `withCapacity`): its cap, so that no write ever grows it by copying it.
 */
export function fileCapacity(maxDatabaseBytes: number): number {
  return Math.min(maxDatabaseBytes, MAX_FILE_CAPACITY);
}

/** The error of a store call that would wait for the snapshot or backup it is made from (Engine.reading). */
/**
 * A wait for the store's turn given up (Gate): the transaction, snapshot or backup holding it ran nothing
 * for lockWaitMs while this waited. Called from inside the holder's own function, the call would wait
 * for itself; from outside, the holder's work is elsewhere (a hook looping inside a write). Either way a
 * 503 in the envelope, as the team server's DatabaseBusy: nothing of the waiting operation was done. Its
 * message says both, what a client should do and what a caller from inside did wrong.
 */
export class StoreBusy extends ApiError {
  readonly code = 'EDESKBASE_STORE_BUSY';
  constructor(message: string) {
    super(503, message);
    this.name = 'StoreBusy';
  }
}

function insideReader(waitedMs: number): Error {
  return new StoreBusy(`The database is busy: a snapshot or backup holding the store's turn read nothing for ${waitedMs} ms while this waited for it. Nothing of this was done; try again in a moment (a write, snapshot, backup or checkpoint from inside a snapshot or backup waits for it: read through the reader it is handed)`);
}

/** The error of a store call that would wait for the transaction it is made from. */
function insideWrite(waitedMs?: number): Error {
  // at a write function's synchronous start: certainly from inside it
  if (waitedMs === undefined) return new Error('a read or write through the store from inside a write() transaction would wait for that transaction: go through its tx');
  return new StoreBusy(`The database is busy: a write transaction ran no statement for ${waitedMs} ms while this waited for it. Nothing of this was done; try again in a moment (a read or write through the store from inside a write() transaction waits for that transaction: go through its tx)`);
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

/** Whether the database has a trigger (a write could then change tables its statement does not name). */
function hasTriggers(db: Database): boolean {
  return db.exec(ANY_TRIGGER).length > 0;
}
