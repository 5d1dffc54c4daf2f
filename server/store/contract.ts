// The store's interface: what core sees of the database (reads, one write funnel, checkpoints). The
// Engine implements it; db.ts opens one and is the module the rest of the server imports.
import type { Row, SqlValue } from '../model/types.js';
import type { QueryBudget } from './deadline.js';
import type { Params } from './statements.js';

/**
 * Reads. Every call is asynchronous: on the desktop engine a read waits while a write transaction is
 * open (no reader sees uncommitted rows), a networked store goes to its server.
 */
export interface ReadDb {
  all<T = Row>(sql: string, params?: Params): Promise<T[]>;
  get<T = Row>(sql: string, params?: Params): Promise<T | undefined>;
}

export interface WriteTx extends ReadDb {
  /** Executes one statement inside the write transaction and records it for the journal. */
  run(sql: string, params?: Params): Promise<{ changes: number }>;
  /**
   * Called by a long write (an import, a truncate) before its first statement that changes anything:
   * reads from outside go on during the transaction, on the data as it was committed, instead of
   * waiting for its end. The desktop engine copies the database for them (skipped past a size); an
   * engine whose readers never wait for a writer (PostgreSQL) has nothing to do.
   */
  keepReadsGoing?(): Promise<void>;
  /**
   * The same reads with each row they return charged to the write's budget (its work and bytes): for SQL
   * the store's callers do not write themselves (a hook's `$app.db()` inside a write), which may read
   * without end. The store's own long writes (a truncate, a cascade, an import) read through `all`/`get`,
   * uncharged: their work is bounded by what they do. An engine that bounds every statement itself
   * (PostgreSQL's statement_timeout) has none.
   */
  counted?: Pick<ReadDb, 'all' | 'get'>;
}

/** The SQL a store's engine takes: core writes through the matching Dialect (server/filter/dialect.ts). */
export type StoreDialect = 'sqlite' | 'postgres';

/**
 * What a store's error says a statement failed on, so core never reads an engine's wording: an error a
 * store throws carries it as `storeFailure` (the desktop engine's sql.js errors do not: core reads
 * SQLite's messages for it, in core/store-failures.ts, the one place that does).
 * - unique: a unique index or key refused the row; `index` is its name as stored, when it is one of
 *   the collection's (or maintained) indexes, `columns` the columns it covers, when the engine says;
 * - full: the database cannot grow (the desktop's size cap).
 */
export type StoreFailure = { kind: 'unique'; index?: string; columns?: string[] } | { kind: 'full' };

export interface Store extends ReadDb {
  /** The SQL this store takes; absent means SQLite (the desktop engine). */
  readonly dialect?: StoreDialect;
  /**
   * Moves whenever what a read can see may have changed: at the end of every write transaction (before
   * any read that waited for it runs) and when the database is replaced (recovery, restore: again once
   * the reload listeners are done). Only a
   * store that sees every write itself has one (the desktop's); absent, no answer may be kept across
   * requests (http/read-cache.ts).
   */
  readonly version?: number;
  /**
   * A number that moves whenever one of `tables` may have changed (store/table-versions.ts): what a
   * cache keeps of a few tables outlives writes to the others. Only a store with a `version` has one.
   */
  tablesVersion?(tables: readonly string[]): number;
  /**
   * As tablesVersion, but a write that only added rows to `tables` (a plain INSERT: no REPLACE, no
   * upsert) leaves it: what is kept of rows that existed outlives new ones (a sign-in's session row
   * leaves every other kept session as it was: core/session-store.ts).
   */
  rowsVersion?(tables: readonly string[]): number;
  /**
   * As `version`, but a committed write that changed only `tables` leaves it (store/table-versions.ts):
   * the read cache's, which no write to `_sessions` alone (a sign-in) concerns.
   */
  versionExcept?(tables: readonly string[]): number;
  /**
   * Runs `fn` inside one transaction, one writer at a time (later writes wait their turn; reads from
   * outside wait until the transaction ends). `fn` may await, and reads and writes inside it go through
   * `tx`: a read or write through the store from inside it fails (it would wait for its own transaction). If `fn`
   * throws, the transaction is rolled back and nothing is journaled. Otherwise the statements are
   * committed, appended to the journal, and the promise resolves after the journal is synced
   * (concurrent writes may share one sync). `budget`: the query budget of the transaction's statements.
   */
  write<T>(fn: (tx: WriteTx) => Promise<T> | T, budget?: QueryBudget): Promise<T>;
  /**
   * Reads whose engine work counts against `budget` (store/deadline.ts): past its work, a statement
   * that calls `checkDeadline()` (through an SQL function) fails with QueryTimeoutError, and so does a
   * read between two of its rows; past its read bytes (see valueBytes), with ReadTooLargeError.
   */
  reader(budget: QueryBudget): ReadDb;
  /**
   * Runs `fn`'s reads on one committed state: no write commits while it runs (a list's page, count and
   * expand agree). `fn` only reads, through the reader it is handed (under `budget` when given); a write
   * or another snapshot from inside it would wait for it.
   */
  snapshot<T>(fn: (db: ReadDb) => Promise<T>, budget?: QueryBudget): Promise<T>;
  /** Writes a snapshot and empties the journal. */
  checkpoint(): Promise<void>;
  /** Checkpoints (when durable) and releases the database. */
  close(): Promise<void>;
  /** Counters for tests and diagnostics (all zero for an in-memory store). */
  stats(): StoreStats;
  /** The data folder, or null for an in-memory store. */
  readonly dir: string | null;
  /**
   * The `journal.<n>.log.damaged-*` files in the data folder when it was opened: writes kept aside from a
   * damaged journal (this start's or an earlier one's) that the owner has not dealt with yet.
   */
  readonly keptAside: readonly string[];
  /**
   * A consistent copy of the whole database as a SQLite file (what `GET /api/backup` sends): committed
   * transactions only. `alongside` reads what else the copy needs (the files its records name) from the
   * same state: no write commits between its reads and the copy.
   */
  backup<T = undefined>(alongside?: (db: ReadDb) => Promise<T>): Promise<{ bytes: Uint8Array; alongside: T }>;
  /**
   * Calls `listener` after the store reloaded itself from disk (a failed journal write drops the
   * unacknowledged change), so caches built from the database can be rebuilt.
   */
  onReload(listener: () => void | Promise<void>): void;
  /**
   * Charges `work` units (store/deadline.ts) to the budget of the engine call running now and throws once
   * it is spent; a no-op without one (what the SQL guards call).
   */
  checkDeadline(work: number): void;
  /**
   * Replaces the data with what `swap` leaves in the folder (a restore): writes wait, the journal is
   * drained, `swap` runs, and memory reloads from the folder (reload listeners hear of it).
   */
  replaceFromDisk(swap: () => Promise<void>): Promise<void>;
  /** Opens a database file for checking (a restore's candidate); throws unless it is a healthy Deskbase database. */
  inspect(bytes: Buffer): Promise<ReadDb & { close(): void }>;
  /** Registers a scalar SQL function for every statement from now on (kept across reloads). */
  defineFunction(name: string, fn: SqlFunction): void;
  /**
   * Runs `fn` as work for `client` (a request's client key, http/client-key.ts; '' is the server's
   * own work: hooks, cron, start-up): what every operation started inside it holds of what the store
   * shares between callers is counted as that client's, and shared fairly between clients (the team
   * server's pooled connections: one client's queued operations never keep another's waiting behind
   * them). Absent on the desktop engine, which has nothing so shared (one writer at a time, reads
   * in turn): callers run `fn` as it is (core's `asClient`).
   */
  asClient?<T>(client: string, fn: () => T): T;
  /** The client the work running now is for (asClient's), '' outside any: hooks run their host operations as it. */
  clientNow?(): string;
  /**
   * What this node's committed writes tell the other nodes over one database, and what theirs tell it
   * (a team server); absent on the desktop, where one process holds everything.
   */
  readonly bus?: StoreBus;
}

/**
 * One entry of the bus, as every node reads it in commit order: `records`, a record change core appended
 * inside its write (`data` as core encoded it); `schema`, a row of `_collections` inserted, updated or
 * deleted (`data`: `{"op":"INSERT"|"UPDATE"|"DELETE","id":...,"data":<the definition>}`), appended by the
 * store itself with the same commit, whatever wrote it.
 */
export interface BusEntry {
  /** Its place in commit order: contiguous, one after the other. */
  pos: number;
  /** The transaction that appended it: entries of one transaction are adjacent. */
  tx: string;
  /** Whether this node committed it. */
  mine: boolean;
  kind: 'records' | 'schema';
  data: string;
}

export interface BusListener {
  /** Committed entries, in commit order, each once; the next call waits for this one. */
  entries(entries: readonly BusEntry[]): Promise<void> | void;
  /**
   * Entries were missed (pruned before this node read them, after a long disconnection): whatever was
   * built from them must be rebuilt from the database.
   */
  missed(): Promise<void> | void;
}

export interface StoreBus {
  /** Appends record changes (each a JSON text) inside the write transaction `tx`: delivered only if it commits. */
  append(tx: WriteTx, items: readonly string[]): Promise<void>;
  /** The position of the last committed entry now (entries after it are what a listener started now gets). */
  position(): Promise<number>;
  /** Delivers every entry committed after position `from` to `listener`, from now until the store closes. */
  listen(listener: BusListener, from: number): void;
}

/** A scalar SQL function: arguments as sql.js hands them over (text, number, blob, NULL). */
export type SqlFunction = (...args: (SqlValue | Uint8Array)[]) => SqlValue;

export interface StoreStats {
  /** Journal entries appended since open: one per write() that ran at least one statement. */
  entries: number;
  /** fdatasync calls that made entries durable; fewer than `entries` when commits were grouped. */
  syncs: number;
  /** Bytes appended to the journal since open, entry framing included. */
  journalBytes: number;
  /** Bytes in the journal segment being appended to (what the automatic checkpoint watches). */
  journalSize: number;
  /** Checkpoints finished since open: the snapshot written and the journal segments it replaces removed. */
  checkpoints: number;
  /** Journal entries replayed when the store was opened. */
  replayed: number;
}
