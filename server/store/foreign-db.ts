// Another program's SQLite database, read-only, in memory (a PocketBase data.db being moved in). It is
// a copy of the bytes: nothing is ever written back, and the file may be damaged or hostile (superusers
// upload it), so reads go through sql.js's own checks and column names are kept as own keys only.
import type { Database } from 'sql.js';
import type { Row, SqlValue } from '../model/types.js';
import { loadSqlJs } from './db.js';

export interface ForeignDb {
  all(sql: string, params?: SqlValue[]): Row[];
  /**
   * The rows of `sql`, `pageRows` at a time, read as the pages are asked for: a caller takes a turn of
   * the event loop between pages instead of reading a whole table in one stretch.
   */
  pages(sql: string, pageRows: number): Generator<Row[]>;
  /** The names of the database's tables. */
  tables(): Set<string>;
  close(): void;
}

export async function openForeignDb(bytes: Uint8Array): Promise<ForeignDb> {
  const SQL = await loadSqlJs();
  let db: Database;
  try {
    db = new SQL.Database(bytes);
    db.exec('PRAGMA query_only = ON');
    db.exec('SELECT count(*) FROM sqlite_master'); // a file that is not SQLite fails here, not later
  } catch (err) {
    throw new Error(`not a SQLite database (${err instanceof Error ? err.message : String(err)})`);
  }
  function* pages(sql: string, pageRows: number, params: SqlValue[] = []): Generator<Row[]> {
    // the database is this object's own and read-only: a statement may stay open between pages
    const stmt = db.prepare(sql);
    try {
      stmt.bind(params);
      const names = stmt.getColumnNames();
      let rows: Row[] = [];
      while (stmt.step()) {
        const values = stmt.get();
        const row: Row = {};
        names.forEach((name, i) => Object.defineProperty(row, name, { value: values[i] as SqlValue, enumerable: true, writable: true, configurable: true }));
        if (rows.push(row) === pageRows) {
          yield rows;
          rows = [];
        }
      }
      if (rows.length > 0) yield rows;
    } finally {
      stmt.free();
    }
  }
  const all = (sql: string, params: SqlValue[] = []): Row[] => {
    const rows: Row[] = [];
    for (const page of pages(sql, Number.MAX_SAFE_INTEGER, params)) rows.push(...page);
    return rows;
  };
  return {
    all,
    pages: (sql, pageRows) => pages(sql, pageRows),
    tables: () => new Set(all(`SELECT name FROM sqlite_master WHERE type = 'table'`).map((r) => String(r.name))),
    close: () => db.close(),
  };
}
