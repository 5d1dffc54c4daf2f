// Query deadlines. sql.js has no progress handler and no interrupt, so the only way to stop a running
// statement is a JavaScript function, called from inside it, that throws. The filter compiler puts
// such a guard call in every loop it emits (see filter/guard.ts); this file decides when it throws.
//
// A budget covers one synchronous stretch of work (a list or view, the part of a write up to its first
// await, the response built after it): the stretch during which the event loop serves nobody else.
// Past it, the guard throws and the database call fails with QueryTimeoutError; core says what the
// client gets. (An AsyncLocalStorage budget following a request across awaits was measured: enabling
// it costs every request about 15% in promise hooks on Node 20, for stretches that are bounded anyway.)

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
  readonly until: number;
  /** The guard threw: the failure of the running call is this budget's doing. */
  fired = false;

  constructor(readonly limit: number) {
    this.until = performance.now() + limit;
  }
}

export class Deadlines {
  /** The budget of the stretch running now (JavaScript runs one stretch at a time). */
  private active: Budget | null = null;

  /** Runs the synchronous part of `fn` under a budget of `ms`; inside another budget, that one holds. */
  run<T>(ms: number, fn: () => T): T {
    if (this.active !== null) return fn();
    const budget = new Budget(ms);
    this.active = budget;
    try {
      return fn();
    } finally {
      this.active = null;
    }
  }

  /** One database call: if the guard stopped it, it fails with QueryTimeoutError. */
  within<T>(call: () => T): T {
    const budget = this.active;
    if (budget === null) return call();
    try {
      return call();
    } catch (err) {
      if (budget.fired) throw new QueryTimeoutError(budget.limit, { cause: err });
      throw err;
    }
  }

  private calls = 0;

  /**
   * The guard: throws once the running stretch's budget is spent (SQLite reports it as the statement's
   * error). It runs for every row of a guarded loop, so it reads the clock on one call in eight: a
   * call and a clock read cost about the same as the row itself.
   */
  check = (): void => {
    const budget = this.active;
    if (budget === null || (++this.calls & 7) !== 0 || performance.now() <= budget.until) return;
    budget.fired = true;
    throw new Error('query deadline passed');
  };
}
