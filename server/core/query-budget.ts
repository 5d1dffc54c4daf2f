// One slow query must not stall everyone: all SQL runs on the one event loop, so each operation a
// request drives (a list or view with its expand; a write's checks; its transaction; the response after
// it) gets a budget of QUERY_BUDGET_MS of database work, made here and handed to every store call of the
// operation (`store.reader(budget)`, `store.write(fn, budget)`). On the desktop the work is counted, not
// timed (store/deadline.ts): the same request on the same data is charged the same on an idle or a
// saturated machine. Compiled filters, sorts and rules charge their work inside the SQL
// (filter/guard.ts); the store stops the statement. On PostgreSQL the work counted is the rows reads copy
// out, and each statement's time only meets a far backstop (store-postgres/budget.ts).
//
// Past the budget the client gets a 400, not a 5xx: the cost comes from what the request asks for
// (its filter, sort or expand, or its body against a rule) and the same request on the same data
// fails the same way, so retrying cannot help and a server-fault status would invite retries of the
// same costly work. The message says what to change.
import { ApiError } from '../errors.js';
import { guardFunctions } from '../filter/guard.js';
import { QueryBudget } from '../store/db.js';
import type { ReadDb, Store } from '../store/db.js';
import { QueryTimeoutError, ReadTooLargeError } from '../store/deadline.js';

/**
 * One operation's budget of database work, in ms: counted work on the desktop (WORK_PER_MS units per ms),
 * several times what a legitimate list over a large collection is charged; on PostgreSQL the rows read, weighed alike.
 */
export const QUERY_BUDGET_MS = 150;

/**
 * What one answer may hold: the rows one operation reads, and an expand as its JSON repeats the records it
 * holds. A record of the largest body (32 MiB) fits; a page of large rows is refused with a 400 instead
 * of being read whole only to fail in JSON.stringify.
 */
export const MAX_RESPONSE_BYTES = 48 * 1024 * 1024;

/**
 * What one write may store at once, its values weighed as submitted (value-weight.ts): a create, an
 * update, or a whole batch (one budget for all its requests). Storing a value costs the event loop time in
 * proportion to its size (sql.js copies each string into its memory, then SQLite writes its pages through
 * its in-memory file), all in the write's one synchronous transaction. 8 MiB holds a PocketBase-sized
 * editor value (5 MiB) and keeps a write's transaction short (docs/architecture.md, "Measurements behind
 * the code").
 */
export const MAX_WRITE_BYTES = 8 * 1024 * 1024;

export function writeTooLarge(limitBytes = MAX_WRITE_BYTES): ApiError {
  return new ApiError(400, `The submitted values weigh more than ${Math.round(limitBytes / 1024 / 1024)} MiB; one write (or one batch, all its requests together) may store at most that much: send fewer or smaller values per request.`);
}

export function responseTooLarge(limitBytes: number): ApiError {
  const size = limitBytes >= 1024 * 1024 ? `${Math.round(limitBytes / 1024 / 1024)} MiB` : `${limitBytes} bytes`;
  return new ApiError(400, `The response would hold more than ${size}: ask for fewer records (perPage), only the fields you need (fields), or a smaller expand.`);
}

export function queryTooSlow(budgetMs: number): ApiError {
  return new ApiError(400, `The request needed more than ${budgetMs} ms of database time and was stopped; narrow its filter, sort or expand.`);
}

/** Registers the SQL functions guarded SQL calls. */
export function installQueryGuards(store: Store): void {
  for (const [name, fn] of Object.entries(guardFunctions(store.checkDeadline))) store.defineFunction(name, fn);
}

/** What a client gets for a budget its operation spent: a 400 naming the limit; other errors as they are. */
export function budgetError(err: unknown, budgetMs: number): unknown {
  if (err instanceof QueryTimeoutError) return queryTooSlow(budgetMs);
  if (err instanceof ReadTooLargeError) return responseTooLarge(err.limitBytes);
  return err;
}

/**
 * Runs a client-driven operation with a budget of its own: `budgetMs` of database work and `readBytes`
 * of rows read, through the reader it is handed; running past either is a 400.
 */
export async function underDeadline<T>(
  store: Store,
  budgetMs: number,
  operation: (db: ReadDb, budget: QueryBudget) => Promise<T>,
  readBytes = MAX_RESPONSE_BYTES,
): Promise<T> {
  const budget = new QueryBudget(budgetMs, readBytes);
  try {
    return await operation(store.reader(budget), budget);
  } catch (err) {
    throw budgetError(err, budgetMs);
  }
}

/**
 * A read-only operation under its budget, all its reads on one committed state (`store.snapshot`): a
 * list's page, its count and its expand agree, as when the store answered synchronously.
 */
export async function readUnderDeadline<T>(store: Store, budgetMs: number, operation: (db: ReadDb) => Promise<T>, readBytes = MAX_RESPONSE_BYTES): Promise<T> {
  try {
    return await store.snapshot(operation, new QueryBudget(budgetMs, readBytes));
  } catch (err) {
    throw budgetError(err, budgetMs);
  }
}
