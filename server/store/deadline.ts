// Query deadlines. sql.js has no progress handler and no interrupt, so the only way to stop a running
// statement is a JavaScript function, called from inside it, that throws. The filter compiler puts
// such a guard call in every loop it emits (see filter/guard.ts); this file decides when it throws.
//
// A budget is an object the caller makes for one operation (a list or view with its expand, a write's
// checks, its transaction, the response built after it) and hands to every database call of it
// (`store.reader(budget)`, `store.write(fn, budget)`). It counts only the time spent inside the engine's
// synchronous calls for that operation: the work it makes the database do, not the time it waited for
// a write transaction to end or for other requests (issue 28: bounded by what it does, not by the
// clock). The engine makes a budget active only around each synchronous sql.js call, so awaits between
// statements cost it nothing; past it, the guard throws and the call fails with QueryTimeoutError;
// core says what the client gets (docs/architecture.md, "Decisions of the compiler and the deadline").

export class QueryTimeoutError extends Error {
  constructor(
    readonly budgetMs: number,
    options?: ErrorOptions,
  ) {
    super(`the query ran past its ${budgetMs} ms budget`, options);
    this.name = 'QueryTimeoutError';
  }
}

/**
 * Rows read under one budget hold more bytes than its read limit: reading stops there, before a page of
 * large rows is read whole only for its answer to fail.
 */
export class ReadTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the rows read passed ${limitBytes} bytes`);
    this.name = 'ReadTooLargeError';
  }
}

/**
 * One operation's budget: `limitMs` of engine time and `readLimit` bytes of rows read, spent across
 * every database call the operation makes with it.
 */
export class QueryBudget {
  /** Engine time spent so far, in ms. */
  spent = 0;
  /** Bytes of the rows read so far. */
  read = 0;
  /** The guard threw during the running call: its failure is this budget's doing. */
  fired = false;
  /** While a call runs: the clock reading past which it stops. */
  until = 0;

  constructor(
    readonly limit: number,
    readonly readLimit = Infinity,
  ) {}
}

/** What a value read from SQLite weighs in a JSON answer, roughly: its characters or bytes. */
export function valueBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (value instanceof Uint8Array) return value.byteLength;
  return 8;
}

export class Deadlines {
  /** The budget of the engine call running now (one synchronous call at a time), or null. */
  private active: QueryBudget | null = null;
  private calls = 0;

  /**
   * One synchronous database call under `budget` (none: unbounded). The time it takes is added to the
   * budget's spending; if the guard stopped it, it fails with QueryTimeoutError. A call made while
   * another runs (an SQL function reading) keeps the outer budget.
   */
  within<T>(budget: QueryBudget | null | undefined, call: () => T): T {
    if (budget == null || this.active !== null) return call();
    const start = performance.now();
    budget.until = start + budget.limit - budget.spent;
    budget.fired = false;
    this.active = budget;
    try {
      return call();
    } catch (err) {
      if (budget.fired) throw new QueryTimeoutError(budget.limit, { cause: err });
      throw err;
    } finally {
      this.active = null;
      budget.spent += performance.now() - start;
    }
  }

  /**
   * Between the rows a read returns (the store's read loop): the clock, since reading and copying out a
   * large row is work no guard inside the statement sees, and the bytes read so far under the budget.
   */
  rowRead(bytes: number): void {
    const budget = this.active;
    if (budget === null) return;
    if ((budget.read += bytes) > budget.readLimit) throw new ReadTooLargeError(budget.readLimit);
    if (performance.now() > budget.until) {
      budget.fired = true;
      throw new Error('query deadline passed');
    }
  }

  /**
   * The guard: throws once the running call's budget is spent (SQLite reports it as the statement's
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
