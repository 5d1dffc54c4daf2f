// The store's connections, each one of its own: a postgres.js instance with max 1, so that the store
// knows when *its* connection closed (the instance's `onclose`) and never sends another statement on it.
//
// Why not postgres.js's pool with `reserve()` / `begin()`: in 3.4.9 a statement sent on a reserved
// connection after its server went away either crashes the process (an uncaught TypeError from
// `nextWrite`, upstream issue porsager/postgres#1208) or, when the pool has reconnected that
// connection meanwhile for another query, runs on the new session, outside the transaction it
// belonged to (committed on its own). A lease here refuses every statement once its connection has
// closed; the instance is then ended and replaced, and a fresh one reconnects (to whichever host is
// primary, with target_session_attrs=primary).
//
// Shared fairly between clients: each lease is for a client (the request's client key, '' the server's
// own work: store.ts `asClient`). With every connection held, a connection given back goes to the
// waiting client that holds the fewest; among those holding as many, round-robin (the client served
// longest ago, or never; each client's own operations first come, first served: fair.ts, the order the
// node's write turn is shared in too). One client queueing any number of slow operations keeps no
// other client waiting behind them: the next connection given back goes to a client holding fewer.
// A write waiting for a connection goes before every client: it holds the node's write turn, which
// every other client's write waits for.
import type postgres from 'postgres';
import { DatabaseBusy, DatabaseUnavailable } from './errors.js';
import { FairQueue } from './fair.js';

type Sql = postgres.Sql;

/** How long an operation waits for a connection while the database is known to be unreachable. */
export const DOWN_WAIT_MS = 1000;

/** One connection: its instance, how many times it has closed, who to tell when it does. */
class Conn {
  closes = 0;
  readonly sql: Sql;
  readonly listeners = new Set<() => void>();
  constructor(make: (onclose: () => void) => Sql) {
    this.sql = make(() => {
      this.closes++;
      for (const listener of this.listeners) listener();
    });
  }
}

/** postgres.js's Query: a promise that can be settled from outside; `state` once sent on a connection. */
type Settleable = postgres.PendingQuery<postgres.Row[]> & { reject?: (err: unknown) => void; state?: unknown };

/**
 * A connection held by one operation. `unsafe` sends a statement on it, or refuses (rejects with a
 * 503, nothing sent) once the connection has closed since the lease began; `begin` opens a
 * transaction within the wait for a connection; `release` gives it back (ended and replaced when lost
 * or left inside a transaction).
 */
export class Lease {
  private readonly closesAtStart: number;
  /** Between a BEGIN sent and its COMMIT or ROLLBACK answered. */
  inTransaction = false;
  /**
   * The statements sent during the lease, held weakly: a settled one (and its parameters, a file's
   * chunk among them) is not kept alive for the rest of a long write.
   */
  private readonly sent: WeakRef<Settleable>[] = [];
  private readonly onClose = (): void => {
    // postgres.js does not always settle what was under way when its connection closes (with several
    // hosts, an error on a connection it still counts as connecting is swallowed): settle it here
    const lost = Object.assign(new Error('the connection to the database closed'), { code: 'CONNECTION_CLOSED' });
    for (const ref of this.sent) {
      const query = ref.deref();
      if (query === undefined) continue;
      query.reject?.(lost);
      // one still queued (never sent on the connection that closed) would be sent on the reconnected
      // session, outside this transaction: out of the queue with it (this runs before postgres.js
      // reconnects for what it has queued)
      if (query.state === undefined) void query.cancel();
    }
  };

  constructor(
    private readonly owner: Connections,
    private readonly conn: Conn,
    /** Whom the connection is lent to (Connections counts what each client holds). */
    readonly client: string,
  ) {
    this.closesAtStart = conn.closes;
    conn.listeners.add(this.onClose);
  }

  /** The connection closed during the lease: whatever was under way on it is gone. */
  get lost(): boolean {
    return this.conn.closes !== this.closesAtStart;
  }

  unsafe = <T extends readonly (object | undefined)[] = postgres.Row[]>(text: string, params?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions): postgres.PendingQuery<T> => {
    if (this.lost) {
      // a query that is never sent: its promise rejects, its cursor and execute() are safe to call
      const refused = Promise.reject(new DatabaseUnavailable(false)) as unknown as postgres.PendingQuery<T>;
      (refused as unknown as Promise<unknown>).catch(() => undefined);
      void Object.assign(refused, { execute: () => refused, cursor: () => refusedCursor(), cancel: () => undefined });
      return refused;
    }
    const query = this.conn.sql.unsafe(text, params ?? [], options) as unknown as postgres.PendingQuery<T>;
    this.sent.push(new WeakRef(query as unknown as Settleable));
    return query;
  };

  /**
   * Sends `statements` (the BEGIN first) together; resolves once they are answered. Without a
   * connection by `until` (performance.now() time: the operation's wait, from when it started), a 503.
   */
  async begin(statements: string[], until: number): Promise<void> {
    this.inTransaction = true;
    const sent = statements.map((s) => {
      const q = this.unsafe(s);
      void q.execute();
      q.catch(() => undefined);
      return q;
    });
    await this.owner.withinWait(Promise.all(sent), until);
    this.owner.reached();
  }

  /** COMMIT or ROLLBACK answered: the connection is outside any transaction again. */
  ended(): void {
    this.inTransaction = false;
  }

  release(): void {
    this.conn.listeners.delete(this.onClose);
    this.owner.giveBack(this.conn, this.lost || this.inTransaction, this.client);
  }
}

/** The cursor of a statement never sent: its first batch is the refusal. */
function refusedCursor(): AsyncIterable<never> {
  return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new DatabaseUnavailable(false)) }) };
}

export class Connections {
  private readonly idle: Conn[] = [];
  private readonly all = new Set<Conn>();
  /** Operations waiting for a connection, by client (fair.ts: round-robin, ranked by connections held). */
  private readonly waiting = new FairQueue<(conn: Conn) => void>();
  /** Connections lent, by client (a client holding none is absent). */
  private readonly held = new Map<string, number>();
  /**
   * The write waiting for a connection (`lease`'s `writer`: one at a time, writes take turns), served
   * before any client: it holds the node's write turn, so every other client's write waits behind it
   * (by holdings alone, a client holding many would keep them all waiting behind its own write).
   */
  private writer: { client: string; wake: (conn: Conn) => void } | null = null;
  private ending: Promise<void> | null = null;

  constructor(
    private readonly make: (onclose: () => void) => Sql,
    private readonly max: number,
    readonly waitMs: number,
  ) {}

  /**
   * The last wait for a connection ran out, and none has answered since: operations then wait
   * DOWN_WAIT_MS only, so that requests during an outage are refused at once, not each after waitMs.
   */
  private down = false;

  /** When an operation starting now stops waiting for a connection (performance.now() time). */
  deadline(): number {
    return performance.now() + (this.down ? Math.min(DOWN_WAIT_MS, this.waitMs) : this.waitMs);
  }

  /** A connection answered: the database is reachable again. */
  reached(): void {
    this.down = false;
  }

  /**
   * `work`, or a 503 when it is not done by `until` (see deadline()): DatabaseUnavailable (and the
   * database taken as down) when `work` waits for the database to answer, DatabaseBusy when it waits
   * for a connection another operation holds (`busy`: the database answers, the pool is all taken).
   */
  async withinWait<T>(work: Promise<T>, until: number, busy = false): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    // the wait as it is (waitMs, DOWN_WAIT_MS during an outage, or what an operation's deadline left)
    const waitMs = Math.max(0, until - performance.now());
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (busy) return reject(new DatabaseBusy(waitMs));
        this.down = true;
        reject(new DatabaseUnavailable(false));
      }, waitMs);
    });
    try {
      return await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A connection of one's own for `client` ('' the server's own work): an idle one, a new one while
   * under `max`, else one given back (by `until`), in the order of fairness between clients (giveBack);
   * `writer`: for the write holding the node's write turn, given back before any client (`writer`).
   */
  async lease(until: number, client = '', writer = false): Promise<Lease> {
    if (this.ending) throw new Error('the store is closed');
    const idle = this.idle.pop();
    if (idle !== undefined) return this.lend(idle, client);
    if (this.all.size < this.max) return this.lend(this.open(), client);
    let wake!: (conn: Conn) => void;
    const given = new Promise<Conn>((resolve) => (wake = resolve));
    if (writer && this.writer === null) this.writer = { client, wake };
    else this.waiting.push(client, wake);
    try {
      // counted as the client's when given (giveBack)
      return new Lease(this, await this.withinWait(given, until, true), client);
    } catch (err) {
      if (!this.unqueue(client, wake)) void given.then((conn) => this.giveBack(conn, false, client));
      throw err;
    }
  }

  /** Connections lent to `client` now. */
  private holding(client: string): number {
    return this.held.get(client) ?? 0;
  }

  private lend(conn: Conn, client: string): Lease {
    this.held.set(client, this.holding(client) + 1);
    return new Lease(this, conn, client);
  }

  /** Takes `wake` out of `client`'s queue; false when it was already given a connection. */
  private unqueue(client: string, wake: (conn: Conn) => void): boolean {
    if (this.writer?.wake === wake) {
      this.writer = null;
      return true;
    }
    return this.waiting.remove(client, wake);
  }

  /**
   * Who the next connection given back goes to: the write holding the node's write turn, else the
   * client holding the fewest, of those equal the one whose place in the round comes first (fair.ts);
   * its first operation waiting is taken out of its queue, and the client goes to the end of the round.
   */
  private nextWaiter(): { client: string; wake: (conn: Conn) => void } | null {
    const writer = this.writer;
    if (writer !== null) {
      this.writer = null;
      return writer;
    }
    const next = this.waiting.shift((client) => this.holding(client));
    return next === null ? null : { client: next.client, wake: next.item };
  }

  private open(): Conn {
    const conn = new Conn(this.make);
    this.all.add(conn);
    return conn;
  }

  /**
   * Back from `client` to the idle list or a waiter (nextWaiter: the client holding the fewest);
   * `discard`: ended, and a new one takes its place.
   */
  giveBack(conn: Conn, discard: boolean, client: string): void {
    const holds = this.holding(client) - 1;
    if (holds > 0) this.held.set(client, holds);
    else this.held.delete(client);
    if (!this.all.has(conn)) return;
    if (discard || this.ending) {
      this.all.delete(conn);
      void conn.sql.end({ timeout: 0 }).catch(() => undefined);
      if (this.ending) return;
      conn = this.open();
    }
    const next = this.nextWaiter();
    if (next === null) {
      this.idle.push(conn);
      return;
    }
    this.held.set(next.client, this.holding(next.client) + 1);
    next.wake(conn);
  }

  /** Ends every connection (those still leased when their operation gives them back). */
  end(timeoutSeconds: number): Promise<void> {
    this.ending ??= Promise.all(Array.from(this.idle, (c) => {
      this.all.delete(c);
      return c.sql.end({ timeout: timeoutSeconds }).catch(() => undefined);
    })).then(() => undefined);
    this.idle.length = 0;
    return this.ending;
  }
}
