// What a query budget (store/deadline.ts) means on PostgreSQL (issue 28: budgets count work, not time).
//
// - Work, counted as the desktop counts it where PostgreSQL lets a client see it: each row a read copies
//   out charges READ_ROW_WORK plus READ_BYTE_WORK per byte of its values (the desktop's read loop
//   weighs rows the same), so the same request on the same data is charged the same on an idle or a
//   saturated machine. PostgreSQL offers no count of a statement's work on the server that could stop
//   it (no progress handler; a planner estimate is one more round trip and blind to what hostile
//   filters cost, a quadratic LIKE), so the work inside a statement is bounded by the backstop alone.
// - A far backstop of time, as the desktop's BACKSTOP_MS: `POSTGRES_BACKSTOP_MS` per operation (never
//   less than the budget's own limit, never more than its `backstopMs`). Each statement is sent under a
//   `statement_timeout` of what is left of it, on the database server's clock; the time each statement
//   took, as this node saw it, is summed into `budget.clock` across the operation's statements. A good
//   request never meets it: its statements take milliseconds, even with the node's event loop late by
//   hundreds. It is shorter than the wait for a pooled connection (CONNECT_WAIT_MS, 5 s), so requests
//   that hold every connection until their backstop delay a good request but never make it fail its
//   wait, however many of them one client queues (connections.ts: a connection given back goes to the
//   client holding the fewest; docs/architecture.md, "The PostgreSQL store").
import { QueryTimeoutError, READ_BYTE_WORK, READ_ROW_WORK, WORK_PER_MS, type QueryBudget } from '../store/deadline.js';

/** One operation's time on PostgreSQL past which its statements are stopped: a far backstop. */
export const POSTGRES_BACKSTOP_MS = 2_000;

/**
 * What one statement of a write may take on PostgreSQL's clock, within the backstop: a write holds the
 * node's write turn (store.ts `turn`), every other write of the node queued behind it, so a statement
 * there is bounded closer (a good write's statements take milliseconds, a 500-id delete of a cascade
 * tens). A create whose createRule (`title ~ note` on 60,000 bytes, PostgreSQL's quadratic LIKE)
 * passes its prepare step under the backstop runs the check again in its transaction: without this
 * bound it was saved after 2.7 s and the node's other creates waited up to 1.1 s; with it, it is
 * refused in its transaction and they waited up to 0.9 s (at a load of 6-9 on 2 cores, PostgreSQL's
 * backends busy with the check's prepare step meanwhile).
 */
export const POSTGRES_WRITE_STATEMENT_MS = 500;

/** The backstop of `budget` on PostgreSQL, in ms. */
export function backstopOf(budget: QueryBudget): number {
  return Math.min(budget.backstopMs, Math.max(POSTGRES_BACKSTOP_MS, budget.limit));
}

/** Whether `budget` is spent: its work, or its backstop. */
export function isSpent(budget: QueryBudget): boolean {
  return budget.work > budget.limit * WORK_PER_MS || budget.clock >= backstopOf(budget);
}

/** Refuses a statement under a spent budget before it is sent. */
export function refuseSpent(budget: QueryBudget): void {
  if (isSpent(budget)) throw new QueryTimeoutError(budget.limit);
}

/** The `statement_timeout` (ms, at least 1) for the next statement under `budget`: what is left of its backstop. */
export function timeoutOf(budget: QueryBudget): number {
  return Math.max(1, Math.ceil(backstopOf(budget) - budget.clock));
}

/** The `statement_timeout` for the next statement of a write under `budget`: POSTGRES_WRITE_STATEMENT_MS at most. */
export function writeTimeoutOf(budget: QueryBudget): number {
  return Math.min(POSTGRES_WRITE_STATEMENT_MS, timeoutOf(budget));
}

/** Adds a statement's time, as this node saw it, to what the backstop bounds (never to the work). */
export function clocked(budget: QueryBudget, ms: number): void {
  budget.clock += ms;
}

/** Charges one row read of `bytes` bytes to `budget`'s work; throws QueryTimeoutError once it is spent. */
export function chargeRow(budget: QueryBudget, bytes: number): void {
  budget.work += READ_ROW_WORK + bytes * READ_BYTE_WORK;
  budget.spent = budget.work / WORK_PER_MS;
  if (budget.work > budget.limit * WORK_PER_MS) throw new QueryTimeoutError(budget.limit);
}

/** PostgreSQL cancelled a statement under `budget` (its statement_timeout): the backstop is reached. */
export function backstopReached(budget: QueryBudget): void {
  budget.clock = Math.max(budget.clock, backstopOf(budget));
}
