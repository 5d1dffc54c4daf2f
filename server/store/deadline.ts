// Query deadlines. sql.js has no progress handler and no interrupt, so the only way to stop a running
// statement is a JavaScript function, called from inside it, that throws. The filter compiler puts
// such a guard call in every loop it emits (see filter/guard.ts); this file decides when it throws.
//
// A budget covers one synchronous stretch of work (a list or view, the part of a write up to its first
// await, the response built after it): the stretch during which the event loop serves nobody else.
// Past it, the guard throws and the database call fails with QueryTimeoutError; core says what the
// client gets. (An AsyncLocalStorage budget following a request across awaits would put promise hooks on
// every request, for stretches that are bounded anyway: docs/architecture.md, "Decisions of the compiler
// and the deadline, measured".)

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
 * Rows read in one stretch hold more bytes than its read limit: reading stops there, before a page of
 * large rows is read whole only for its answer to fail.
 */
export class ReadTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the rows read passed ${limitBytes} bytes`);
    this.name = 'ReadTooLargeError';
  }
}

class Budget {
  readonly until: number;
  /** The guard threw: the failure of the running call is this budget's doing. */
  fired = false;
  /** Bytes of the rows read so far in this stretch. */
  read = 0;

  constructor(
    readonly limit: number,
    readonly readLimit: number,
  ) {
    this.until = performance.now() + limit;
  }
}

/** What a value read from SQLite weighs in a JSON answer, roughly: its characters or bytes. */
export function valueBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (value instanceof Uint8Array) return value.byteLength;
  return 8;
}

export class Deadlines {
  /** The budget of the stretch running now (JavaScript runs one stretch at a time). */
  private active: Budget | null = null;

  /**
   * Runs the synchronous part of `fn` under a budget of `ms` and of `readBytes` bytes of rows read;
   * inside another budget, that one holds.
   */
  run<T>(ms: number, fn: () => T, readBytes = Infinity): T {
    if (this.active !== null) return fn();
    const budget = new Budget(ms, readBytes);
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
   * Between the rows a read returns (the store's read loop): the clock, since reading and copying out a
   * large row is work no guard inside the statement sees, and the bytes read so far in this stretch.
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
