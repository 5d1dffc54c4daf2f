// PostgreSQL's errors as core knows them from the desktop engine, by SQLSTATE (never by wording): a
// unique violation carries `storeFailure` (store/contract.ts: the index, or the columns of a key) and
// reads as SQLite's "UNIQUE constraint failed: ..."; a statement cancelled under a budget is
// QueryTimeoutError; a full disk is the disk's ENOSPC (which the HTTP layer answers with a 503,
// nothing changed); a text with U+0000 in it, which PostgreSQL cannot take, is a 400. Anything else
// keeps PostgreSQL's message, with its SQLSTATE as `code`.
import { ApiError } from '../errors.js';
import type { StoreFailure } from '../store/contract.js';
import { QueryTimeoutError } from '../store/deadline.js';
import type { QueryBudget } from '../store/deadline.js';

/** The fields of postgres.js's PostgresError that the mapping reads. */
interface PgErrorShape {
  code?: unknown;
  routine?: unknown;
  message: string;
  constraint_name?: string;
  table_name?: string;
  detail?: string;
}

const UNIQUE_VIOLATION = '23505';
const QUERY_CANCELED = '57014';
/** character_not_in_repertoire: a text bound with U+0000 (PostgreSQL's text cannot hold it). */
const NUL_IN_TEXT = '22021';
const DISK_FULL = '53100';
const OUT_OF_MEMORY = '53200';

/**
 * A failed statement's error as core expects it. `budget`: the budget the statement ran under (a
 * cancellation under one is that budget's doing: statement_timeout is how it is enforced).
 */
export function mapPgError(err: unknown, budget: QueryBudget | null | undefined): unknown {
  if (typeof err !== 'object' || err === null || !(err instanceof Error)) return err;
  const pg = err as Error & PgErrorShape;
  switch (pg.code) {
    case UNIQUE_VIOLATION: {
      const failure = uniqueFailure(pg);
      const target = failure.index !== undefined ? `index '${failure.index}'` : (failure.columns ?? []).map((c) => `${pg.table_name ?? ''}.${c}`).join(', ');
      return Object.assign(new Error(`UNIQUE constraint failed: ${target}`, { cause: err }), { code: 'SQLITE_CONSTRAINT_UNIQUE', storeFailure: failure });
    }
    case NUL_IN_TEXT:
      // a value that reached a statement with it (a filter's, an id in the URL): writes refuse theirs
      // earlier, naming the field (core/writes/write-sql.ts, unstorableErrors)
      return new ApiError(400, 'The request holds the character U+0000 (NUL), which the team server\'s PostgreSQL cannot take.');
    case QUERY_CANCELED:
      if (budget != null) return new QueryTimeoutError(budget.limit, { cause: err });
      // a statement_timeout core set itself for a stretch of a write (a view's creation, view-postgres.ts)
      return /statement timeout/.test(pg.message) ? new QueryTimeoutError(Number.NaN, { cause: err }) : err;
    case DISK_FULL:
      return withCode(new Error(`PostgreSQL's disk is full: ${pg.message}`, { cause: err }), 'ENOSPC');
    case OUT_OF_MEMORY:
      return withCode(new Error(`PostgreSQL is out of memory: ${pg.message}`, { cause: err }), 'ENOMEM');
    default:
      return err;
  }
}

/**
 * A prepared statement whose result's columns changed since it was prepared on that connection
 * (`SELECT *` after a schema change, by this node or another): 0A000 "cached plan must not change
 * result type". postgres.js forgets the statement and runs it again, which works outside a
 * transaction; inside one the transaction is aborted by then, so the store runs it again itself.
 */
export function isStalePlan(err: unknown): boolean {
  const pg = err as Partial<PgErrorShape> | null;
  return typeof pg === 'object' && pg !== null && pg.code === '0A000' && pg.routine === 'RevalidateCachedQuery';
}

/**
 * What a unique violation refused: the columns of a table's own key or UNIQUE column (PostgreSQL names
 * those constraints <table>_pkey and <table>_<columns>_key), else the unique index by its name.
 */
function uniqueFailure(pg: PgErrorShape): Extract<StoreFailure, { kind: 'unique' }> {
  const name = pg.constraint_name ?? '';
  const key = /^Key \((.+?)\)=/.exec(pg.detail ?? '');
  if (key && (name.endsWith('_pkey') || name.endsWith('_key'))) {
    return { kind: 'unique', columns: key[1].split(',').map((c) => c.trim().replace(/^"|"$/g, '')) };
  }
  return { kind: 'unique', index: name };
}

function withCode(error: Error, code: string): Error {
  return Object.assign(error, { code });
}
