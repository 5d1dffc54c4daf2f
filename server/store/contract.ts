// The store's interface: what core sees of the database (reads, one write funnel, checkpoints). The
// Engine implements it; db.ts opens one and is the module the rest of the server imports.
import type { Row, SqlValue } from '../model/types.js';
import type { Params } from './statements.js';

export interface ReadDb {
  all<T = Row>(sql: string, params?: Params): T[];
  get<T = Row>(sql: string, params?: Params): T | undefined;
}

export interface WriteTx extends ReadDb {
  /** Executes one statement inside the write transaction and records it for the journal. */
  run(sql: string, params?: Params): { changes: number };
}

export interface Store extends ReadDb {
  /**
   * Runs `fn` synchronously inside one transaction. If it throws, the transaction is rolled back and
   * nothing is journaled. Otherwise the statements are committed, appended to the journal, and the
   * promise resolves after the journal is synced (concurrent writes may share one sync).
   */
  write<T>(fn: (tx: WriteTx) => T): Promise<T>;
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
  /** A consistent copy of the whole database as a SQLite file (what `GET /api/backup` sends). */
  backup(): Uint8Array;
  /**
   * Calls `listener` after the store reloaded itself from disk (a failed journal write drops the
   * unacknowledged change), so caches built from the database can be rebuilt.
   */
  onReload(listener: () => void): void;
  /**
   * Runs the synchronous part of `fn` with a deadline `ms` milliseconds away: past it, a statement that
   * calls `checkDeadline()` (through an SQL function) fails with QueryTimeoutError, and so does a read
   * between two of its rows. Rows read in the stretch may hold `readBytes` bytes (see valueBytes); past
   * them the read fails with ReadTooLargeError. Nested calls keep the outer deadline.
   */
  withDeadline<T>(ms: number, fn: () => T, readBytes?: number): T;
  /** Throws when the deadline of the work running now has passed; a no-op without one. */
  checkDeadline(): void;
  /**
   * Replaces the data with what `swap` leaves in the folder (a restore): writes wait, the journal is
   * drained, `swap` runs, and memory reloads from the folder (reload listeners hear of it).
   */
  replaceFromDisk(swap: () => Promise<void>): Promise<void>;
  /** Opens a database file for checking (a restore's candidate); throws unless it is a healthy Deskbase database. */
  inspect(bytes: Buffer): ReadDb & { close(): void };
  /** Registers a scalar SQL function for every statement from now on (kept across reloads). */
  defineFunction(name: string, fn: SqlFunction): void;
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
  /** Snapshots written since open. */
  checkpoints: number;
  /** Journal entries replayed when the store was opened. */
  replayed: number;
}
