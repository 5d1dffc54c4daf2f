// PostgreSQL's errors as core knows them from the desktop engine, by SQLSTATE (never by wording):
// a unique violation reads as SQLite's "UNIQUE constraint failed: ..." (what core/writes/validate.ts and
// collections-ddl.ts parse), a cancelled statement under a budget as QueryTimeoutError, a full disk as
// the disk's ENOSPC (which the HTTP layer answers with a 503, nothing changed). Anything else keeps
// PostgreSQL's message, with its SQLSTATE as `code`.
import { QueryTimeoutError } from '../store/deadline.js';
import type { QueryBudget } from '../store/deadline.js';

/** The fields of postgres.js's PostgresError that the mapping reads. */
interface PgErrorShape {
  code?: unknown;
  message: string;
  constraint_name?: string;
  table_name?: string;
  detail?: string;
}

const UNIQUE_VIOLATION = '23505';
const QUERY_CANCELED = '57014';
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
    case UNIQUE_VIOLATION:
      return withCode(new Error(`UNIQUE constraint failed: ${uniqueTarget(pg)}`, { cause: err }), 'SQLITE_CONSTRAINT_UNIQUE');
    case QUERY_CANCELED:
      return budget != null ? new QueryTimeoutError(budget.limit, { cause: err }) : err;
    case DISK_FULL:
      return withCode(new Error(`PostgreSQL's disk is full: ${pg.message}`, { cause: err }), 'ENOSPC');
    case OUT_OF_MEMORY:
      return withCode(new Error(`PostgreSQL is out of memory: ${pg.message}`, { cause: err }), 'ENOMEM');
    default:
      return err;
  }
}

/**
 * What SQLite names after "UNIQUE constraint failed: ": `table.column, table.column` for a key or a
 * column's own UNIQUE, `index 'name'` for a unique index Deskbase created by name.
 */
function uniqueTarget(pg: PgErrorShape): string {
  const table = pg.table_name ?? '';
  const name = pg.constraint_name ?? '';
  const key = /^Key \((.+?)\)=/.exec(pg.detail ?? '');
  // PostgreSQL names a table's own constraints <table>_pkey and <table>_<columns>_key
  if (key && (name.endsWith('_pkey') || name.endsWith('_key'))) {
    return key[1].split(',').map((c) => `${table}.${c.trim().replace(/^"|"$/g, '')}`).join(', ');
  }
  return `index '${name}'`;
}

function withCode(error: Error, code: string): Error {
  return Object.assign(error, { code });
}
