// Query budgets. sql.js has no progress handler and no interrupt (1.16 exports neither
// sqlite3_progress_handler nor sqlite3_interrupt, and no function of its wasm table could stand in), so
// the only way to stop a running statement is a JavaScript function, called from inside it, that
// throws. The filter compiler puts such a call in every loop it emits (see filter/guard.ts); this file
// decides when it throws.
//
// A budget counts work, not time (issue 28): the same request on the same data is charged the same,
// whether the machine is idle or saturated. Work is counted in units of about a nanosecond of engine
// time on an idle machine (WORK_PER_MS per ms): each guard call charges what the SQL around it may do
// for that row (filter/guard.ts weighs it), and each row the store's read loop copies out charges
// READ_ROW_WORK plus READ_BYTE_WORK per byte. A budget of `limit` ms may spend `limit * WORK_PER_MS`
// units. Work no guard sees (an unguarded scan or sort) is bounded by the data, not by what a request
// multiplies; the engine time of the calls is still summed, and a call that runs past BACKSTOP_MS of it
// is stopped too: a far backstop, seconds, that a good request never meets.
//
// A budget is an object the caller makes for one operation (a list or view with its expand, a write's
// checks, its transaction, the response built after it) and hands to every database call of it
// (`store.reader(budget)`, `store.write(fn, budget)`). The engine makes a budget active only around each
// synchronous sql.js call, so awaits between statements, and waiting for a write transaction or for
// other requests, cost it nothing; past it, the guard throws and the call fails with QueryTimeoutError;
// core says what the client gets (docs/architecture.md, "Decisions of the compiler and the deadline").

/** Work units per ms of budget: a unit is about a nanosecond of engine time on an idle machine. */
export const WORK_PER_MS = 1_000_000;

/** What copying one row out of a statement costs, besides its bytes (the store's read loop). */
export const READ_ROW_WORK = 1_000;

/** What copying one byte of a row's values out of sql.js costs (UTF-8 decoding included). */
export const READ_BYTE_WORK = 2;

/**
 * The wall-clock backstop: engine time one operation may take, whatever it was charged. Only work no
 * guard counts can reach it (an unguarded statement over a very large table); a good request is
 * charged its work long before, idle or descheduled for seconds.
 */
export const BACKSTOP_MS = 5_000;

/** How often (in charges) the backstop reads the clock: a clock read costs about as much as a charge. */
const CLOCK_EVERY = 64;

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
 * One operation's budget: `limit` ms of database work and `readLimit` bytes of rows read, spent across
 * every database call the operation makes with it. The work is counted (`work`, in units): on the desktop
 * guard calls and rows read, on PostgreSQL rows read (store-postgres/budget.ts, where `clock` feeds its
 * far backstop, `statement_timeout`).
 */
export class QueryBudget {
  /** Database work spent so far, in ms: counted work / WORK_PER_MS (on both engines). */
  spent = 0;
  /** Work counted so far, in units (the desktop engine). */
  work = 0;
  /** Engine time of the calls so far, in ms: what the backstop bounds. */
  clock = 0;
  /** Bytes of the rows read so far. */
  read = 0;
  /** The guard threw during the running call: its failure is this budget's doing. */
  fired = false;
  /** While a call runs: the clock reading past which the backstop stops it. */
  until = 0;

  constructor(
    readonly limit: number,
    readonly readLimit = Infinity,
    /** The desktop engine's wall-clock backstop for the operation's calls, in ms. */
    readonly backstopMs = Math.max(BACKSTOP_MS, limit),
  ) {}
}

/** What a value read from SQLite weighs in a JSON answer, roughly: its characters or bytes. */
export function valueBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (value instanceof Uint8Array) return value.byteLength;
  return 8;
}

/** Bytes of a row's values as read (valueBytes each), the weight of what is made from it. */
export function rowBytes(row: object): number {
  let n = 0;
  for (const key in row) n += valueBytes((row as Record<string, unknown>)[key]);
  return n;
}

export class Deadlines {
  /** The budget of the engine call running now (one synchronous call at a time), or null. */
  private active: QueryBudget | null = null;
  /** The running call's budget's work limit, in units. */
  private workLimit = Infinity;
  private charges = 0;

  /**
   * One synchronous database call under `budget` (none: unbounded). The work it is charged and the time
   * it takes are added to the budget; if a charge stopped it, it fails with QueryTimeoutError. A call
   * made while another runs (an SQL function reading) keeps the outer budget.
   */
  within<T>(budget: QueryBudget | null | undefined, call: () => T): T {
    if (budget == null || this.active !== null) return call();
    const start = performance.now();
    budget.until = start + budget.backstopMs - budget.clock;
    budget.fired = false;
    this.active = budget;
    this.workLimit = budget.limit * WORK_PER_MS;
    try {
      // spent already (an earlier call, or the backstop): refused before it starts
      if (budget.work > this.workLimit || budget.until < start) this.stop(budget);
      return call();
    } catch (err) {
      if (budget.fired) throw new QueryTimeoutError(budget.limit, { cause: err });
      throw err;
    } finally {
      this.active = null;
      budget.clock += performance.now() - start;
      budget.spent = budget.work / WORK_PER_MS;
    }
  }

  /**
   * Charges `work` units to the running call's budget (none: nothing) and throws once it is spent, or
   * once the call passed the backstop. SQLite reports the throw as the statement's error.
   */
  charge = (work: number): void => {
    const budget = this.active;
    if (budget === null) return;
    if ((budget.work += work) > this.workLimit) this.stop(budget);
    if ((++this.charges & (CLOCK_EVERY - 1)) === 0 && performance.now() > budget.until) this.stop(budget);
  };

  /**
   * Between the rows a read returns (the store's read loop): copying a row out is work no guard inside
   * the statement sees; the bytes read so far under the budget are bounded too.
   */
  rowRead(bytes: number): void {
    const budget = this.active;
    if (budget === null) return;
    if ((budget.read += bytes) > budget.readLimit) throw new ReadTooLargeError(budget.readLimit);
    this.charge(READ_ROW_WORK + bytes * READ_BYTE_WORK);
  }

  private stop(budget: QueryBudget): never {
    budget.fired = true;
    throw new Error('query budget spent');
  }
}
