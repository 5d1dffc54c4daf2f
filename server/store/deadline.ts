// Query deadlines. sql.js has no progress handler and no interrupt, so the only way to stop a running
// statement is a JavaScript function, called from inside it, that throws. The filter compiler puts
// such a guard call in every loop it emits (see filter/guard.ts); this file decides when it throws.
//
// A budget belongs to one request (an AsyncLocalStorage context, so it follows the request across
// awaits) and counts the time the request holds the event loop in its synchronous start and in
// database calls: a write waiting for the journal or a body still arriving does not use it up. Past it, the guard throws and the call fails with
// QueryTimeoutError; core says what the client gets.
import { AsyncLocalStorage } from 'node:async_hooks';

export class QueryTimeoutError extends Error {
  constructor(
    readonly budgetMs: number,
    options?: ErrorOptions,
  ) {
    super(`the query ran past its ${budgetMs} ms budget`, options);
    this.name = 'QueryTimeoutError';
  }
}

class Budget {
  /** Milliseconds spent in finished database calls. */
  spent = 0;
  /** When the database call running now started. */
  since = 0;
  /** Nesting of database calls (statements inside a write transaction). */
  depth = 0;
  /** The guard threw: the failure of the running call is this budget's doing. */
  fired = false;

  constructor(readonly limit: number) {}

  expired(): boolean {
    return this.spent + (performance.now() - this.since) > this.limit;
  }
}

export class Deadlines {
  private readonly context = new AsyncLocalStorage<Budget>();
  /** The budget of the database call running now (calls are synchronous: one at a time). */
  private active: Budget | null = null;

  /**
   * Runs `fn`, and the async work it starts, under a budget; inside another budget, that one holds.
   * The synchronous part of `fn` counts whole (compiling, shaping the response: the event loop is held
   * all the same); after an await, only database calls count.
   */
  run<T>(budgetMs: number, fn: () => T): T {
    if (this.context.getStore() !== undefined) return fn();
    return this.context.run(new Budget(budgetMs), () => this.within(fn));
  }

  /** One synchronous database call, timed against the caller's budget (if any). */
  within<T>(call: () => T): T {
    const budget = this.context.getStore();
    if (budget === undefined) return call();
    if (budget.depth++ === 0) budget.since = performance.now();
    const outer = this.active;
    this.active = budget;
    try {
      return call();
    } catch (err) {
      if (budget.fired) throw new QueryTimeoutError(budget.limit, { cause: err });
      throw err;
    } finally {
      this.active = outer;
      if (--budget.depth === 0) budget.spent += performance.now() - budget.since;
    }
  }

  /** The guard: throws once the running call's budget is spent (SQLite reports it as the statement's error). */
  check(): void {
    const budget = this.active;
    if (budget === null || !budget.expired()) return;
    budget.fired = true;
    throw new Error('query deadline passed');
  }
}
