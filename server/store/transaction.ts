// One write transaction: runs the caller's synchronous function between BEGIN and COMMIT and records
// each statement that succeeded, with its bound parameters, for the journal.
import type { Database } from 'sql.js';
import { assertSqlValues } from './codec.js';
import type { StatementEncoder } from './codec.js';
import type { WriteTx } from './contract.js';
import { queryAll, queryGet, runStatement } from './statements.js';
import type { Params, StatementCache } from './statements.js';

/** Commits and returns fn's result, or rolls back and rethrows. `encoder` is null in memory. */
export function runTransaction<T>(
  db: Database,
  cache: StatementCache,
  fn: (tx: WriteTx) => T,
  encoder: StatementEncoder | null,
): T {
  runStatement(cache, 'BEGIN');
  try {
    const result = fn(recordingTx(db, cache, encoder));
    if (result instanceof Promise) throw new Error('the write() callback must be synchronous');
    runStatement(cache, 'COMMIT');
    return result;
  } catch (err) {
    try {
      runStatement(cache, 'ROLLBACK');
    } catch {
      // The statement that failed had already ended the transaction (OR ROLLBACK).
    }
    throw err;
  }
}

/**
 * Statements are journaled once they succeed (a failed one changed nothing). Reads journal nothing
 * unless they changed rows, as `INSERT ... RETURNING` through `tx.get` does.
 */
function recordingTx(db: Database, cache: StatementCache, encoder: StatementEncoder | null): WriteTx {
  const recordIfChanged = <R>(sql: string, params: Params | undefined, read: () => R): R => {
    assertSqlValues(params ?? []);
    if (encoder === null) return read();
    const before = totalChanges(cache);
    const result = read();
    if (totalChanges(cache) !== before) encoder.add(sql, params ?? []);
    return result;
  };
  return {
    all: (sql, params) => recordIfChanged(sql, params, () => queryAll(cache, sql, params)),
    get: (sql, params) => recordIfChanged(sql, params, () => queryGet(cache, sql, params)),
    run: (sql, params = []) => {
      // Checked in memory too, so code tested against an in-memory store behaves the same on disk.
      assertSqlValues(params);
      runStatement(cache, sql, params);
      encoder?.add(sql, params);
      return { changes: db.getRowsModified() };
    },
  };
}

function totalChanges(cache: StatementCache): number {
  return queryGet<{ n: number }>(cache, 'SELECT total_changes() AS n')?.n ?? 0;
}
