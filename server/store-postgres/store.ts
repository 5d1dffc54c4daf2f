// The Store (store/contract.ts) over PostgreSQL, through postgres.js: what a team server's core runs
// on. docs/architecture.md, "The PostgreSQL store", says what it maps and what it refuses.
//
// - Statements: core's SQL goes through `POSTGRES.statement()` (placeholders `?` → `$n`, names past
//   63 bytes shortened), cached per text; each is prepared once per connection.
// - Rows look as on SQLite: int8 and numeric read as numbers, booleans as 1/0, json and timestamps as
//   the stored text (type parsers below).
// - Connections (connections.ts): each operation leases one of its own (at most `max`), for the
//   client the work is for (`asClient`, an AsyncLocalStorage: set per request by the HTTP layer
//   through core; '' the server's own), the pool shared fairly between clients; never
//   postgres.js's reserve()/begin(), which can crash the process or run a statement outside its
//   transaction after the server went away. `reader(budget)` runs each read in a READ ONLY transaction whose
//   `statement_timeout` is what is left of the budget's far backstop, and charges the rows read as the
//   desktop does (work and bytes, budget.ts), reading through a cursor so that a read past either
//   limit stops there (QueryTimeoutError, ReadTooLargeError).
// - Writes: `write(fn, budget)` is one transaction on one leased connection. Writes take turns
//   within a node as on the desktop, one at a time, the turn shared fairly between clients (`turn`,
//   fair.ts: round-robin, each client's own in order); between nodes PostgreSQL's own locks order
//   them; a write the turn has not come to within `connectWaitMs` is refused (DatabaseBusy, a 503)
//   and never runs. Each statement inside runs under a savepoint, so a failing one undoes only itself and the
//   transaction goes on, as a failing statement does on SQLite. A read or write through the store
//   from inside a write's function fails at once (it would not see the transaction's rows, or would
//   wait for it).
// - Errors by SQLSTATE (errors.ts). A database that cannot be reached answers a 503
//   (DatabaseUnavailable) instead of holding the request: postgres.js retries a connection until a
//   host takes it (with several hosts, until one is primary), so an operation that has no connection
//   after `connectWaitMs` is refused (the connection still trying is ended). A write whose connection
//   is lost is never acknowledged: nothing more is sent on it (no COMMIT), or its COMMIT fails, in doubt.
// - What has no meaning here is empty (stats, keptAside, checkpoint, reload listeners); what cannot be
//   done refuses with an error naming what to use instead (backup and restore: pg_dump / pg_restore).
import { AsyncLocalStorage } from 'node:async_hooks';
import type postgres from 'postgres';
import { ApiError } from '../errors.js';
import { POSTGRES } from '../filter/dialect.js';
import { CHARGE_FUNCTION, GUARD_FUNCTION, LIKE_FUNCTION } from '../filter/guard.js';
import type { Row } from '../model/types.js';
import type { ReadDb, SqlFunction, Store, StoreStats, WriteTx } from '../store/contract.js';
import { ReadTooLargeError, valueBytes, type QueryBudget } from '../store/deadline.js';
import { chargeRow, clocked, refuseSpent, timeoutOf, writeTimeoutOf } from './budget.js';
import type { Params } from '../store/statements.js';
import { Connections, type Lease } from './connections.js';
import { FairQueue } from './fair.js';
import { DatabaseBusy, DatabaseUnavailable, isStalePlan, mapPgError } from './errors.js';
import { ensurePostgresSchema } from './schema.js';
import { APPEND_SQL, APPEND_TIMEOUT_MS, ensureBusSchema, newNodeId, NODE_SETTING, PostgresBus, type BusTiming } from './bus.js';

type Sql = postgres.Sql;
/** What a statement is sent through: a leased connection. */
type Runner = Pick<Lease, 'unsafe'>;

export interface PostgresStoreOptions {
  /** postgres://USER:PASSWORD@HOST:PORT/DB, the libpq multi-host form included. */
  url: string;
  /** The folder uploaded files are kept in (FileStorage), or null. */
  dir?: string | null;
  /** Connections in the pool (writes hold one each while they run). Default 10. */
  max?: number;
  /**
   * How long an operation waits for a connection (the database down, restarting or failing over,
   * the pool busy), and a write for the node's write turn, before it is refused with a 503. Default
   * CONNECT_WAIT_MS.
   */
  connectWaitMs?: number;
  /** Hears what fails where no caller waits (the bus between nodes). Default: console.error. */
  report?: (error: unknown) => void;
  /** The bus's poll and retention (bus.ts; tests raise the poll to prove the doorbell alone). */
  busTiming?: BusTiming;
}

/** The default of `connectWaitMs`: a failover under Patroni takes ~10 s; a client retries after this. */
export const CONNECT_WAIT_MS = 5000;

/** Rows read through a cursor, this many at a time, when the read counts its bytes. */
const CURSOR_ROWS = 200;

const EMPTY_STATS: StoreStats = Object.freeze({ entries: 0, syncs: 0, journalBytes: 0, journalSize: 0, checkpoints: 0, replayed: 0 });

/**
 * Type parsers: values read as sql.js hands them to core. Booleans 1/0; 64-bit integers and numerics
 * as numbers (a `count(*)` is int8); json, jsonb, dates and timestamps as the text PostgreSQL sends.
 */
const TYPES = {
  deskbaseNumber: { to: 0, from: [20, 1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
  deskbaseBool: { to: 16, from: [16], serialize: (x: unknown) => (x === true || x === 1 || x === '1' ? 't' : 'f'), parse: (x: string) => (x === 't' ? 1 : 0) },
  deskbaseText: { to: 25, from: [114, 3802, 1082, 1083, 1114, 1184, 1266], serialize: (x: unknown) => String(x), parse: (x: string) => x },
};

const MAX_CACHED_STATEMENTS = 1000;

/**
 * What every connection of a node opens with. `fetch_types: false`: postgres.js's fetch of the array
 * types, run on each new connection's first ready, is a statement nothing awaits: a connection ended
 * during it (a lease given up at its wait's end, connections.ts) rejects it unhandled, which ends the
 * process (a team-server node died so in the failover test). No statement of the store sends or reads
 * an array.
 */
export function connectionSettings(node: string) {
  return {
    onnotice: () => {},
    types: TYPES as unknown as Record<string, postgres.PostgresType>,
    connection: { application_name: 'deskbase', [NODE_SETTING]: node },
    connect_timeout: CONNECT_TIMEOUT_S,
    fetch_types: false,
  };
}

/** Opens the pool and checks the system tables (creating what is missing). */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  // postgres.js is loaded with the first PostgreSQL store, not with the server: the desktop never opens one
  const { default: postgres } = await import('postgres');
  const node = newNodeId();
  // every connection names its node, so the bus knows which entries this node committed (bus.ts)
  const settings = connectionSettings(node);
  // a URL postgres.js cannot read fails here, before any connection, with a message naming what to do
  const sql = pool(() => postgres(options.url, { ...settings, max: options.max ?? 10 }));
  // what the store's own statements run on (connections.ts); `sql` serves the bus's reads
  const connections = new Connections(
    (onclose) => postgres(options.url, { ...settings, max: 1, onclose }),
    options.max ?? 10,
    options.connectWaitMs ?? CONNECT_WAIT_MS,
  );
  const doorbell = (on: { notify: (payload: string) => void; close: () => void }) => {
    // `onnotify` is postgres.js's own (what its `listen` uses), missing from its types
    const doorbellSettings = { ...settings, max: 1, max_lifetime: null, onnotify: (_channel: string, payload: string) => on.notify(payload), onclose: on.close };
    return postgres(options.url, doorbellSettings);
  };
  const bus = new PostgresBus(sql, node, doorbell, options.report ?? ((error: unknown) => console.error(error)), options.busTiming);
  const store = new PostgresStore(sql, options.dir ?? null, bus, connections);
  try {
    await store.write(async (tx) => {
      await ensurePostgresSchema(tx);
      await ensureBusSchema(tx); // under the same lock
    });
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    // nothing to wait for when the database never answered: its pending connections go at once
    await sql.end({ timeout: code === 'CONNECT_TIMEOUT' ? 0 : 5 }).catch(() => undefined);
    if (code === 'CONNECT_TIMEOUT') {
      // postgres.js's own text names the host and port ("write CONNECT_TIMEOUT HOST:PORT"), never the password
      throw new Error(`could not reach PostgreSQL: no answer within ${CONNECT_TIMEOUT_S} s (${(err as Error).message.replace(/^write /, '')})`, { cause: err });
    }
    if (err instanceof DatabaseUnavailable) {
      // no connection within the wait (connections.ts): say where it looked, never the password
      const wait = (options.connectWaitMs ?? CONNECT_WAIT_MS) / 1000;
      throw new ApiError(503, `could not reach PostgreSQL at ${hostsOf(options.url)}: no connection within ${wait} s`);
    }
    throw err;
  }
  return store;
}

/**
 * How long opening a connection may take, the TCP connect and PostgreSQL's handshake (up to its
 * ReadyForQuery) together: a host that accepts and never answers, or an address out of reach, fails
 * the open (and later each new connection of the pool) after this, not postgres.js's 30 s.
 */
export const CONNECT_TIMEOUT_S = 10;

/** The hosts of a PostgreSQL URL as `host:port, ...` (what lies between its last '@' and its path). */
function hostsOf(url: string): string {
  const afterScheme = url.replace(/^postgres(ql)?:\/\//, '');
  const authority = afterScheme.slice(afterScheme.lastIndexOf('@') + 1).split(/[/?]/)[0];
  return authority.split(',').join(', ') || 'localhost';
}

/** Thrown when the URL cannot be read; its message never holds the URL (nor its password). */
export class InvalidPostgresUrl extends Error {}

/** The pool, or InvalidPostgresUrl when postgres.js cannot read the URL (a bare `%` in a password). */
function pool<T>(open: () => T): T {
  try {
    return open();
  } catch (err) {
    if (err instanceof URIError || (err as { code?: unknown } | null)?.code === 'ERR_INVALID_URL') {
      throw new InvalidPostgresUrl('the PostgreSQL URL cannot be read: percent-encode its user name and password (a % is written %25, @ %40, / %2F, # %23)', { cause: err });
    }
    throw err;
  }
}

export class PostgresStore implements Store {
  readonly dialect = 'postgres' as const;
  readonly keptAside: readonly string[] = [];
  private readonly statements = new Map<string, string>();
  /** Writes waiting for the node's write turn, by client (`turn`). */
  private readonly writers = new FairQueue<() => void>();
  /** The write turn is held (by a write between its `turn` and its release). */
  private writing = false;
  /** Told once no write holds the turn or waits for it (`close`). */
  private readonly drained: (() => void)[] = [];
  /**
   * What the work running now is part of: whom it is for (asClient; outside any, the server's own '')
   * and the write transaction whose function it runs in, if any. One AsyncLocalStorage for both: on
   * Node 20 every live one adds its own propagation to every promise made (two of them cost 10% of
   * a team-server worker's CPU in a profile of the PostgreSQL suites, this one half of that).
   */
  private readonly context = new AsyncLocalStorage<{ client: string; tx: { open: boolean } | null }>();
  private closing: Promise<void> | null = null;

  constructor(
    private readonly sql: Sql,
    readonly dir: string | null,
    /** Between nodes: the outbox and its doorbell (bus.ts). */
    readonly bus: PostgresBus,
    private readonly connections: Connections,
  ) {}

  /**
   * Runs `fn` as work for `client` (Store.asClient): the connections its operations lease are
   * counted as that client's, and shared fairly between clients (connections.ts).
   */
  asClient = <T>(client: string, fn: () => T): T => this.context.run({ client, tx: this.context.getStore()?.tx ?? null }, fn);

  /** Store.clientNow: whom the work running now is for. */
  clientNow = (): string => this.context.getStore()?.client ?? '';

  /** `work` on a connection of its own (leased for the client the work is for), given back (or replaced, when lost) after. */
  private async leased<T>(until: number, work: (lease: Lease, until: number) => Promise<T>, writer = false): Promise<T> {
    const lease = await this.connections.lease(until, this.clientNow(), writer);
    try {
      return await work(lease, until);
    } finally {
      lease.release();
    }
  }

  /**
   * `fn` in a transaction opened by `begin` on a leased connection: COMMIT after it, ROLLBACK when it
   * fails (neither is sent once the connection is lost: the server has ended the transaction).
   */
  private inTransaction<T>(begin: string, fn: (lease: Lease) => Promise<T>): Promise<T> {
    return this.leased(this.connections.deadline(), async (lease, until) => {
      await lease.begin([begin], until).catch((err: unknown) => {
        throw mapPgError(err, null);
      });
      let result: T;
      try {
        result = await fn(lease);
      } catch (err) {
        if (!lease.lost) await lease.unsafe('ROLLBACK').then(() => lease.ended(), () => undefined);
        throw err;
      }
      await lease.unsafe('COMMIT').catch((err: unknown) => {
        throw mapPgError(err, null);
      });
      lease.ended();
      return result;
    });
  }

  /** The statement as PostgreSQL takes it (POSTGRES.statement), remembered per text. */
  private text(sqlText: string): string {
    let out = this.statements.get(sqlText);
    if (out === undefined) {
      out = POSTGRES.statement(sqlText);
      if (this.statements.size >= MAX_CACHED_STATEMENTS) this.statements.delete(this.statements.keys().next().value as string);
      this.statements.set(sqlText, out);
    }
    return out;
  }

  private query(runner: Runner, sqlText: string, params: Params | undefined): postgres.PendingQuery<postgres.Row[]> {
    return runner.unsafe(this.text(sqlText), (params ?? []) as postgres.ParameterOrJSON<never>[], { prepare: true });
  }

  private assertOutside(): void {
    if (this.closing) throw new Error('the store is closed');
    if (this.context.getStore()?.tx?.open === true) {
      throw new Error('a read or write through the store from inside a write() transaction would not see that transaction: go through its tx');
    }
  }

  all = async <T = Row>(sqlText: string, params?: Params): Promise<T[]> => {
    this.assertOutside();
    try {
      // a bare read: within the wait for a connection (it says nothing when its connection opens)
      return await this.leased(this.connections.deadline(), async (lease, until) => {
        // a read not answered within the wait leaves its connection to be replaced, as a transaction would
        lease.inTransaction = true;
        const rows = Array.from(await this.connections.withinWait(this.query(lease, sqlText, params), until)) as T[];
        this.connections.reached();
        lease.ended();
        return rows;
      });
    } catch (err) {
      throw mapPgError(err, null);
    }
  };

  get = async <T = Row>(sqlText: string, params?: Params): Promise<T | undefined> => (await this.all<T>(sqlText, params))[0];

  reader = (budget: QueryBudget): ReadDb => ({
    all: <T = Row>(sqlText: string, params?: Params) => this.budgeted<T>(budget, sqlText, params, Infinity),
    get: async <T = Row>(sqlText: string, params?: Params) => (await this.budgeted<T>(budget, sqlText, params, 1))[0],
  });

  /**
   * One read under `budget`: a READ ONLY transaction whose statement_timeout is what is left of the
   * budget's backstop, the rows read through a cursor and charged as the desktop charges them.
   */
  private async budgeted<T>(budget: QueryBudget, sqlText: string, params: Params | undefined, most: number): Promise<T[]> {
    this.assertOutside();
    refuseSpent(budget);
    // the backstop counts the statement's own time (readRows): neither the wait for a pooled connection
    // (busy with other requests' work, as the write turn on the desktop) nor the BEGIN's round trip
    const readBefore = budget.read;
    const workBefore = budget.work;
    const read = () => this.inTransaction('BEGIN READ ONLY', (tx) => this.readRows<T>(tx, budget, sqlText, params, most));
    try {
      return await read().catch((err: unknown) => {
        if (!isStalePlan(err)) throw err;
        // the connection forgot the statement: its next run prepares it again
        budget.read = readBefore;
        budget.work = workBefore;
        return read();
      });
    } catch (err) {
      throw mapPgError(err, budget);
    }
  }

  /**
   * One read inside an open transaction `tx`: its statement_timeout what is left of `budget`'s
   * backstop, its rows read through a cursor and charged as the desktop charges them (budget.ts). The
   * backstop is charged the statement's time as the answers show it (see `statementTime`): from the
   * answer to the SET sent just before it to the statement's last row.
   */
  private async readRows<T>(tx: Runner, budget: QueryBudget, sqlText: string, params: Params | undefined, most: number): Promise<T[]> {
    const limit = sent(tx.unsafe(`SET LOCAL statement_timeout = ${timeoutOf(budget)}`));
    const rows: T[] = [];
    const cursor = this.query(tx, sqlText, params).cursor(Math.min(most, CURSOR_ROWS))[Symbol.asyncIterator]();
    // asked for before the SET's answer is awaited: both go in one round trip
    let next = cursor.next();
    next.catch(() => undefined);
    await limit;
    const from = performance.now();
    // set when reading stops before the statement's last row (enough rows, or a limit passed): its
    // portal is closed then
    let stopped = false;
    try {
      for (let batch = await next; batch.done !== true; batch = await (next = cursor.next())) {
        for (const row of batch.value) {
          let bytes = 0;
          for (const key in row) bytes += valueBytes(row[key]);
          stopped = true;
          if ((budget.read += bytes) > budget.readLimit) throw new ReadTooLargeError(budget.readLimit);
          chargeRow(budget, bytes);
          rows.push(row as T);
          if (rows.length >= most) return rows;
          stopped = false;
        }
      }
      return rows;
    } finally {
      clocked(budget, statementTime(from));
      if (stopped) await cursor.return?.();
    }
  }

  /**
   * Reads of one committed state: a READ ONLY, REPEATABLE READ transaction on one connection, so a
   * list's page, its count and its expand agree (the desktop's snapshot turn). Each read is charged
   * and bounded as a reader's (readRows).
   */
  snapshot = async <T>(fn: (db: ReadDb) => Promise<T>, budget?: QueryBudget): Promise<T> => {
    this.assertOutside();
    if (budget !== undefined) refuseSpent(budget);
    const reads = () => this.inTransaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
      let chain: Promise<unknown> = Promise.resolve();
      // one connection: reads started together run one after the other
      const read = <R>(sqlText: string, params: Params | undefined, most: number): Promise<R[]> => {
        const run = chain.then(async () => {
          try {
            if (budget === undefined) return Array.from(await this.query(tx, sqlText, params)).slice(0, most) as R[];
            refuseSpent(budget);
            return await this.readRows<R>(tx, budget, sqlText, params, most);
          } catch (err) {
            throw mapPgError(err, budget ?? null);
          }
        });
        chain = run.catch(() => undefined);
        return run;
      };
      return fn({
        all: <R = Row>(sqlText: string, params?: Params) => read<R>(sqlText, params, Infinity),
        get: async <R = Row>(sqlText: string, params?: Params) => (await read<R>(sqlText, params, 1))[0],
      });
    });
    // a statement prepared before a schema change (isStalePlan): the snapshot's reads once more, on a
    // state that has the change (`fn` only reads)
    return (await reads().catch((err: unknown) => {
      if (!isStalePlan(err)) throw err;
      return reads();
    })) as T;
  };

  /**
   * Waits for this node's write turn (one write at a time, so commits, and the bus's positions, come
   * in the order the turn was held); resolves with its release. Shared fairly between clients
   * (fair.ts): each client's writes in the order they asked, and between clients round-robin, the
   * client whose write just ended going to the end of the round, so one client queueing many writes,
   * or slow ones, keeps another client's write behind one of its own at most, not behind all of them.
   * The wait is the wait for a connection (`connectWaitMs`): a write the turn has not come to by then
   * is refused (DatabaseBusy, a 503) and taken out of the queue, the others' order as it was; it never
   * runs, so nothing of it commits, and commits stay in the order the turn was held.
   */
  private turn(): Promise<() => void> {
    const client = this.clientNow();
    return new Promise((granted, refused) => {
      let released = false;
      const grant = (): void => {
        this.writing = true;
        granted(() => {
          if (released) return;
          released = true;
          this.passTurn(client);
        });
      };
      if (!this.writing) return grant();
      const waitMs = this.connections.waitMs;
      const timer = setTimeout(() => {
        // not taken (taking clears this timer): out of the queue, never to run
        this.writers.remove(client, take);
        refused(new DatabaseBusy(waitMs, 'write turn'));
      }, waitMs);
      const take = (): void => {
        clearTimeout(timer);
        grant();
      };
      this.writers.push(client, take);
    });
  }

  /** `client`'s write ended: the turn to the next write waiting (fair.ts), or free. */
  private passTurn(client: string): void {
    this.writers.toBack(client);
    const next = this.writers.shift();
    if (next !== null) return next.item();
    this.writing = false;
    for (const told of this.drained.splice(0)) told();
  }

  /** Writes waiting for the write turn now (the one holding it not counted), for tests and diagnostics. */
  get writesWaiting(): number {
    return this.writers.size;
  }

  /** Resolves once no write holds the turn or waits for it. */
  private writesDone(): Promise<void> {
    if (!this.writing) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  write = async <T>(fn: (tx: WriteTx) => Promise<T> | T, budget?: QueryBudget): Promise<T> => {
    if (this.context.getStore()?.tx?.open === true) throw new Error('write() cannot be called inside another write() transaction');
    this.assertOutside();
    const release = await this.turn();
    try {
      // first of the waiters: it holds the write turn every other write waits for (connections.ts `writer`)
      return await this.leased(this.connections.deadline(), (conn, until) => this.transaction(conn, fn, budget ?? null, until), true);
    } finally {
      release();
    }
  };

  private async transaction<T>(conn: Lease, fn: (tx: WriteTx) => Promise<T> | T, budget: QueryBudget | null, until: number): Promise<T> {
    const state = { open: true };
    // the statement_timeout set last: lowered as the backstop is spent (see `attempt`)
    let timeout = budget === null ? 0 : writeTimeoutOf(budget);
    // Statements run one after the other, as on sql.js, also when fn starts several at once: the
    // transaction ends only after the last, and none can run after it on the pooled connection.
    let tail: Promise<unknown> = Promise.resolve();
    // Each statement under a savepoint, sent in one round trip with it: a failed statement undoes only
    // itself, and the transaction goes on, as after a failed statement on SQLite.
    const inTx = <R>(sqlText: string, params: Params | undefined, read: (rows: postgres.RowList<postgres.Row[]>) => R): Promise<R> => {
      if (!state.open) return Promise.reject(new Error('this transaction has ended: a statement after write() returned ran outside it'));
      const attempt = async (again: boolean): Promise<R> => {
        if (budget !== null) refuseSpent(budget);
        // what is left of the budget's backstop, at most POSTGRES_WRITE_STATEMENT_MS (the write turn is
        // held), bounds the statement on the server's clock; sent only
        // once it has shrunk by a tenth (a statement overruns what is left by at most that), before the
        // savepoint so that a statement undone keeps it
        const left = budget === null ? 0 : writeTimeoutOf(budget);
        const tighten = budget !== null && left < timeout * 0.9 ? sent(conn.unsafe(`SET LOCAL statement_timeout = ${(timeout = left)}`)) : null;
        const mark = sent(conn.unsafe('SAVEPOINT s'));
        const run = sent(this.query(conn, sqlText, params));
        const done = sent(conn.unsafe('RELEASE SAVEPOINT s'));
        let from: number | null = null;
        try {
          await tighten;
          await mark;
          from = performance.now();
          const rows = await run;
          if (budget !== null) clocked(budget, statementTime(from));
          from = null;
          await done;
          return read(rows);
        } catch (err) {
          if (budget !== null && from !== null) clocked(budget, statementTime(from));
          if (!conn.lost) await conn.unsafe('ROLLBACK TO SAVEPOINT s').catch(() => undefined);
          // prepared before a schema change (isStalePlan): undone, and run once more, prepared again
          if (again && !conn.lost && isStalePlan(err)) return attempt(false);
          throw mapPgError(err, budget, { writing: true });
        }
      };
      const step = tail.then(() => attempt(true));
      tail = step.catch(() => undefined);
      return step;
    };
    const tx: WriteTx = {
      all: <R>(sqlText: string, params?: Params) => inTx(sqlText, params, (rows) => Array.from(rows) as R[]),
      get: <R>(sqlText: string, params?: Params) => inTx(sqlText, params, (rows) => rows[0] as R | undefined),
      run: (sqlText: string, params?: Params) => inTx(sqlText, params, (rows) => ({ changes: rows.count ?? 0 })),
    };
    if (budget !== null) refuseSpent(budget);
    // not charged to the budget: a BEGIN waits for the connection to open (the database restarting or
    // failing over), which is not this write's database time, as the wait for the pool is not
    await conn.begin(['BEGIN', ...(budget === null ? [] : [`SET LOCAL statement_timeout = ${timeout}`])], until).catch((err: unknown) => {
      throw mapPgError(err, budget, { writing: true });
    });
    this.bus.begin(tx);
    try {
      const result = await this.context.run({ client: this.clientNow(), tx: state }, () => fn(tx));
      state.open = false;
      await tail;
      const staged = this.bus.end(tx);
      if (staged.length === 0) {
        // the commit is not charged: its wait for the WAL's flush is the desktop's journal sync, which no budget counts
        // (nor does statement_timeout reach its wait for the synchronous standby: PostgreSQL disables it
        // before committing, so the budget never turns that wait into a local-only commit)
        await conn.unsafe('COMMIT').catch((err: unknown) => {
          // a COMMIT never sent (the connection was lost before) is refused as such, not in doubt
          throw mapPgError(err, budget, { writing: true, committing: true });
        });
      } else {
        // the bus's entries (bus.ts), sent with the COMMIT: the head row is held for this round trip only,
        // and its wait for another node's commit is not this write's work (untimed, bounded on its own)
        const relax = budget === null ? null : sent(conn.unsafe(`SET LOCAL statement_timeout = ${APPEND_TIMEOUT_MS}`));
        const appends = staged.map((items) => sent(conn.unsafe<{ last: number; tx: number }[]>(APPEND_SQL, ['records', `[${items.join(',')}]`])));
        const commit = sent(conn.unsafe('COMMIT'));
        const positions: { last: number; tx: number }[] = [];
        try {
          await relax;
          for (const append of appends) positions.push((await append)[0]);
        } catch (err) {
          // the COMMIT sent behind a failed append only ended the failed transaction
          await commit.catch(() => undefined);
          throw mapPgError(err, null, { writing: true });
        }
        await commit.catch((err: unknown) => {
          throw mapPgError(err, null, { writing: true, committing: true });
        });
        // one transaction's statements took contiguous positions: the first's first is where they start
        this.bus.committed(Number(positions[0].last) - staged[0].length + 1, String(positions[0].tx), staged.flat());
      }
      conn.ended();
      return result;
    } catch (err) {
      this.bus.end(tx);
      state.open = false;
      await tail;
      if (!conn.lost) await conn.unsafe('ROLLBACK').then(() => conn.ended(), () => undefined);
      throw err;
    }
  }

  /** Nothing to fold: PostgreSQL keeps its own write-ahead log. */
  checkpoint = (): Promise<void> => Promise.resolve();

  close = (): Promise<void> => {
    this.closing ??= (async () => {
      // writes queued before close still run
      await this.writesDone();
      await this.bus.close();
      await Promise.all([this.connections.end(5), this.sql.end({ timeout: 5 })]);
    })();
    return this.closing;
  };

  stats = (): StoreStats => ({ ...EMPTY_STATS });

  backup = <T = undefined>(_alongside?: (db: ReadDb) => Promise<T>): Promise<never> =>
    Promise.reject(new PostgresUnsupported('A backup of a team server is made with PostgreSQL\'s own tools: pg_dump (and pg_restore to restore it), not Deskbase\'s backup zip.'));

  replaceFromDisk = (_swap: () => Promise<void>): Promise<never> =>
    Promise.reject(new PostgresUnsupported('A team server is restored with pg_restore from a pg_dump archive, not from a Deskbase backup.'));

  inspect = (_bytes: Buffer): Promise<never> =>
    Promise.reject(new PostgresUnsupported('A team server cannot open a desktop database file: restore it with pg_restore from a pg_dump archive.'));

  /** The database is never swapped under the store: listeners are kept and never called. */
  onReload = (): void => {};

  /** No guard runs inside PostgreSQL's SQL: reads charge their rows, statement_timeout is the backstop (budget.ts). */
  checkDeadline = (): void => {};

  /**
   * The deadline guards (filter/guard.ts) need no function here: the POSTGRES dialect emits no call to
   * them (`guards: false`). Any other function core defines has no PostgreSQL equivalent yet, and is
   * refused rather than silently missing from the SQL that calls it.
   */
  defineFunction = (name: string, _fn: SqlFunction): void => {
    if (name === GUARD_FUNCTION || name === CHARGE_FUNCTION || name === LIKE_FUNCTION) return;
    throw new PostgresUnsupported(`The SQL function ${name} exists on the desktop engine only; the PostgreSQL store has no equivalent for it.`);
  };
}

/**
 * A statement's time on the budget's backstop: from the answer to what was sent just before it in the
 * same round trip (a SAVEPOINT, a SET) to its own answer. The server runs the two back to back, so this
 * is the statement's work on the server and the reading of its rows, without the trip to the server
 * and back; under load it also holds the node's own event-loop delay, which is why it only feeds the
 * far backstop, never the work (budget.ts).
 */
function statementTime(from: number): number {
  return performance.now() - from;
}

/**
 * Sends a query now instead of when it is first awaited (postgres.js sends lazily), so that several
 * go out together on one connection; its failure is heard where it is awaited, never unhandled.
 */
function sent<T extends Promise<unknown> & { execute(): unknown }>(query: T): T {
  void query.execute();
  query.catch(() => undefined);
  return query;
}

/**
 * What a team server cannot do the desktop's way: a 400 (an ApiError, which every layer answers as
 * it is) whose message says what to use instead.
 */
export class PostgresUnsupported extends ApiError {
  readonly code = 'EDESKBASE_POSTGRES_UNSUPPORTED';
  constructor(message: string) {
    super(400, message);
    this.name = 'PostgresUnsupported';
  }
}
