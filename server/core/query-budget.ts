// One slow query must not stall everyone: all SQL runs on the one event loop, so each stretch of work a
// request does without awaiting (a list or view with its expand; a write's checks; the response after
// it) gets QUERY_BUDGET_MS. Compiled filters, sorts and rules check the deadline inside the SQL
// (filter/guard.ts); the store stops the statement.
//
// Past the budget the client gets a 400, not a 5xx: the cost comes from what the request asks for
// (its filter, sort or expand, or its body against a rule) and the same request on the same data
// fails the same way, so retrying cannot help and a server-fault status would invite retries of the
// same costly work. The message says what to change.
import { ApiError } from '../errors.js';
import { guardFunctions } from '../filter/guard.js';
import type { Store } from '../store/db.js';
import { QueryTimeoutError } from '../store/deadline.js';

/** One stretch's budget. Legitimate list queries over 100k records take 30-40 ms. */
export const QUERY_BUDGET_MS = 150;

export function queryTooSlow(budgetMs: number): ApiError {
  return new ApiError(400, `The request needed more than ${budgetMs} ms of database time and was stopped; narrow its filter, sort or expand.`);
}

/** Registers the SQL functions guarded SQL calls. */
export function installQueryGuards(store: Store): void {
  for (const [name, fn] of Object.entries(guardFunctions(store.checkDeadline))) store.defineFunction(name, fn);
}

/** Runs the synchronous part of a client-driven operation under the budget; running past it is a 400. */
export function underDeadline<T>(store: Store, budgetMs: number, operation: () => T): T {
  const mapped = (err: unknown) => (err instanceof QueryTimeoutError ? queryTooSlow(budgetMs) : err);
  try {
    const result = store.withDeadline(budgetMs, operation);
    if (result instanceof Promise) {
      return result.catch((err: unknown) => {
        throw mapped(err);
      }) as T;
    }
    return result;
  } catch (err) {
    throw mapped(err);
  }
}
