// The only module (with journal.ts) that touches sql.js. The database lives in memory; durability comes
// from the journal (see design.md "Storage"). Reads run directly; every write runs through `write()`,
// which executes a synchronous function in one transaction, records each statement with its bound
// parameters, and resolves only once the journal entry is synced.
import initSqlJs from 'sql.js';
import type { Database, Statement, SqlJsStatic } from 'sql.js';
import type { Row, SqlValue } from '../core/types.js';

export type Params = readonly SqlValue[];

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
  /** The data folder, or null for an in-memory store. */
  readonly dir: string | null;
}

let sqlJs: Promise<SqlJsStatic> | null = null;
export function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= initSqlJs();
  return sqlJs;
}

/** Prepared statements are cached per SQL text: parsing dominates small queries otherwise. */
export class StatementCache {
  private cache = new Map<string, Statement>();
  constructor(private db: Database, private max = 500) {}

  prepare(sql: string): Statement {
    let stmt = this.cache.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      if (this.cache.size >= this.max) {
        const [oldestSql, oldest] = this.cache.entries().next().value as [string, Statement];
        oldest.free();
        this.cache.delete(oldestSql);
      }
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  clear(): void {
    for (const stmt of this.cache.values()) stmt.free();
    this.cache.clear();
  }
}

export function queryAll<T>(cache: StatementCache, sql: string, params: Params = []): T[] {
  const stmt = cache.prepare(sql);
  try {
    stmt.bind(params as SqlValue[]);
    const rows: T[] = [];
    while (stmt.step()) rows.push(stmt.getAsObject() as T);
    return rows;
  } finally {
    stmt.reset();
  }
}

export function queryGet<T>(cache: StatementCache, sql: string, params: Params = []): T | undefined {
  const stmt = cache.prepare(sql);
  try {
    stmt.bind(params as SqlValue[]);
    return stmt.step() ? (stmt.getAsObject() as T) : undefined;
  } finally {
    stmt.reset();
  }
}

export interface StoreOptions {
  /** Data folder; null keeps everything in memory (tests). */
  dir: string | null;
}

/** Opens the store. In-memory only for now: the journal makes it durable when `dir` is set. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run('PRAGMA foreign_keys = OFF');
  const cache = new StatementCache(db);
  const read: ReadDb = {
    all: (sql, params) => queryAll(cache, sql, params),
    get: (sql, params) => queryGet(cache, sql, params),
  };
  let closed = false;
  return {
    ...read,
    dir: options.dir,
    async write<T>(fn: (tx: WriteTx) => T): Promise<T> {
      if (closed) throw new Error('store is closed');
      db.run('BEGIN');
      let result: T;
      try {
        result = fn({
          ...read,
          run(sql, params = []) {
            const stmt = cache.prepare(sql);
            try {
              stmt.run(params as SqlValue[]);
            } finally {
              stmt.reset();
            }
            return { changes: db.getRowsModified() };
          },
        });
        db.run('COMMIT');
      } catch (err) {
        db.run('ROLLBACK');
        throw err;
      }
      return result;
    },
    async checkpoint() {},
    async close() {
      if (closed) return;
      closed = true;
      cache.clear();
      db.close();
    },
  };
}
