// One write transaction: runs the caller's function between BEGIN and COMMIT (it may await; the engine
// keeps every other writer and reader out meanwhile) and records each statement that succeeded, with
// its bound parameters, for the journal.
import type { Database } from 'sql.js';
import { assertSqlValues } from './codec.js';
import type { StatementEncoder } from './codec.js';
import type { WriteTx } from './contract.js';
import type { Row } from '../model/types.js';
import { checkWriteSql, inWrite, refusalError } from './determinism.js';
import type { WriteScope } from './determinism.js';
import { queryAll, queryGet, runStatement } from './statements.js';
import type { Params, StatementCache } from './statements.js';

/** How the engine runs one synchronous call inside the transaction (under the write's budget). */
export type EngineCall = <R>(call: () => R) => R;

/** The transaction's statements as the caller's function sees them, and the switch the engine turns off at its end. */
export interface OpenTx {
  tx: WriteTx;
  /** After COMMIT or ROLLBACK: a `tx` kept past its transaction fails instead of writing outside one. */
  end(): void;
  /** Whether a statement of the transaction may have changed something (a `run`, a read that changed rows; in memory: always). */
  changed(): boolean;
  /** What the transaction used that replay would make differently (determinism.ts), if anything: it must not commit. */
  refused(): string | null;
}

/** Commits and returns fn's result, or rolls back and rethrows. `encoder` is null in memory. */
export async function runTransaction<T>(
  cache: StatementCache,
  open: OpenTx,
  fn: (tx: WriteTx) => Promise<T> | T,
  call: EngineCall,
  /** Whether `fn`'s synchronous start is running (a read through the store then is a read inside the transaction). */
  starting: (on: boolean) => void,
): Promise<T> {
  call(() => runStatement(cache, 'BEGIN'));
  try {
    let pending: Promise<T> | T;
    starting(true);
    try {
      pending = fn(open.tx);
    } finally {
      starting(false);
    }
    const result = await pending;
    // the caller caught a statement's refusal and went on: what that statement did must not stay
    const refused = open.refused();
    if (refused !== null) throw refusalError(refused);
    call(() => runStatement(cache, 'COMMIT'));
    return result;
  } catch (err) {
    try {
      runStatement(cache, 'ROLLBACK');
    } catch {
      // The statement that failed had already ended the transaction (OR ROLLBACK).
    }
    throw err;
  } finally {
    open.end();
  }
}

/**
 * Statements are journaled once they succeed (a failed one changed nothing). Reads journal nothing
 * unless they changed rows, as `INSERT ... RETURNING` through `tx.get` does, or are not row statements
 * at all (a hook's `$app.db()` CREATE TRIGGER through `all()`).
 */
export function recordingTx(
  db: Database, cache: StatementCache, encoder: StatementEncoder | null, call: EngineCall,
  /** Each row a `counted` read returns (its bytes), charged to the running call's budget as the store's reads are (deadline.ts rowRead). */
  onRow?: (bytes: number) => void,
): OpenTx {
  const tx = new RecordingTx(db, cache, encoder, call, onRow);
  // in memory (no encoder) a read that changed rows goes unseen: count the transaction as changed
  return { tx, end: () => tx.end(), changed: () => tx.changed || encoder === null, refused: () => tx.refused };
}

/**
 * The transaction's statements: a class, so that each write makes one object and not a dozen closures
 * (a create's largest allocation in the store, and each named again under tsx).
 */
class RecordingTx implements WriteTx {
  changed = false;
  /** The first use of something replay would make differently by a statement that wrote: no commit then. */
  refused: string | null = null;
  private open = true;
  /** What the running statement used that replay would make differently (determinism.ts). */
  private readonly scope: WriteScope = { used: null };
  /** Whether the running statement wrote. */
  private wrote = false;
  counted?: Pick<WriteTx, 'all' | 'get'>;
  keepReadsGoing?: () => Promise<void>;

  constructor(
    private readonly db: Database,
    private readonly cache: StatementCache,
    private readonly encoder: StatementEncoder | null,
    private readonly call: EngineCall,
    onRow: ((bytes: number) => void) | undefined,
  ) {
    if (onRow !== undefined) {
      this.counted = {
        all: <R>(sql: string, params?: Params) => this.settle(sql, () => this.recordIfChanged(sql, params, () => queryAll<R>(cache, sql, params, onRow))),
        get: <R>(sql: string, params?: Params) => this.settle(sql, () => this.recordIfChanged(sql, params, () => queryGet<R>(cache, sql, params, onRow))),
      };
    }
  }

  end(): void {
    this.open = false;
  }

  all<R = Row>(sql: string, params?: Params): Promise<R[]> {
    return this.settle(sql, () => this.recordIfChanged(sql, params, () => queryAll<R>(this.cache, sql, params)));
  }

  get<R = Row>(sql: string, params?: Params): Promise<R | undefined> {
    return this.settle(sql, () => this.recordIfChanged(sql, params, () => queryGet<R>(this.cache, sql, params)));
  }

  run(sql: string, params: Params = []): Promise<{ changes: number }> {
    return this.settle(sql, () => {
      // Checked in memory too, so code tested against an in-memory store behaves the same on disk.
      assertSqlValues(params);
      this.changed = true;
      this.wrote = true;
      runStatement(this.cache, sql, params);
      this.encoder?.add(sql, params);
      return { changes: this.db.getRowsModified() };
    });
  }

  private settle<R>(sql: string, work: () => R): Promise<R> {
    try {
      if (!this.open) throw new Error('this transaction has ended: a statement after write() returned ran outside it');
      if (!SELECT_ONLY.test(sql)) checkWriteSql(sql);
      const scope = this.scope;
      scope.used = null;
      this.wrote = false;
      const result = this.call(() => inWrite(scope, work));
      if (scope.used !== null && this.wrote) {
        this.refused ??= scope.used;
        throw refusalError(scope.used);
      }
      return Promise.resolve(result);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private recordIfChanged<R>(sql: string, params: Params | undefined, read: () => R): R {
    assertSqlValues(params ?? []);
    const { encoder, cache } = this;
    // a SELECT changes nothing (only its first statement runs, and the store's SQL functions only
    // count work): its count of changed rows need not be read, two statements per read inside a write
    if (SELECT_ONLY.test(sql)) return read();
    if (DML.test(sql)) {
      // an INSERT, UPDATE or DELETE (... RETURNING, a create's row): its own changes are SQLite's count for
      // the statement, read once after it instead of the total twice around it. With none, no row trigger
      // ran either; an INSTEAD OF trigger's changes are not counted, so then it is journaled whenever a
      // trigger exists (replaying a statement that changed nothing changes nothing). Counted in memory
      // too, so a read that wrote is told apart (determinism.ts) as on disk.
      const result = read();
      if (this.db.getRowsModified() > 0 || hasTrigger(cache)) {
        this.changed = true;
        this.wrote = true;
        encoder?.add(sql, params ?? []);
      }
      return result;
    }
    const before = totalChanges(cache);
    const result = read();
    // SQLite's count of changed rows misses a schema statement (CREATE TRIGGER, an index, ALTER TABLE);
    // counted in memory too, so a read that wrote is told apart (determinism.ts) as on disk
    if (totalChanges(cache) !== before || !ROWS_ONLY.test(sql)) {
      this.changed = true;
      this.wrote = true;
      encoder?.add(sql, params ?? []);
    }
    return result;
  }
}

/** Statements that read rows only: SQLite's SELECT (data-changing statements with RETURNING start otherwise). */
const SELECT_ONLY = /^\s*SELECT\b/i;

/** Whether a trigger exists: of the database or TEMP (a hook's CREATE TEMP TRIGGER; replay makes it again). */
export const ANY_TRIGGER = "SELECT 1 FROM sqlite_master WHERE type = 'trigger' UNION ALL SELECT 1 FROM sqlite_temp_master WHERE type = 'trigger' LIMIT 1";

/** Statements that write rows (read through `get` or `all` with RETURNING). */
const DML = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;

/** Statements that change rows at most (their changes are counted): anything else is journaled as it runs. */
const ROWS_ONLY = /^\s*(?:SELECT|WITH|VALUES|INSERT|UPDATE|DELETE|REPLACE)\b/i;

function hasTrigger(cache: StatementCache): boolean {
  return queryGet(cache, ANY_TRIGGER) !== undefined;
}

function totalChanges(cache: StatementCache): number {
  return queryGet<{ n: number }>(cache, 'SELECT total_changes() AS n')?.n ?? 0;
}
