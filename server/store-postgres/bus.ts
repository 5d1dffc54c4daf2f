// Between nodes over one PostgreSQL (a team server): an outbox table every node reads in commit order,
// and NOTIFY as its doorbell. docs/architecture.md, "Between nodes", says why it is built this way.
//
// - The outbox, `_bus_outbox`: one row per entry, appended inside the writing transaction, so only
//   committed entries exist. Positions come from the one row of `_bus_head`, updated as the
//   transaction's last step before COMMIT: its row lock is held until the commit, so a second
//   transaction takes the next position only once the first has committed (or rolled back, its
//   position then taken again). Positions are therefore contiguous and in commit order, and a reader
//   that sees one sees every one before it.
// - Record changes are appended by core (`append`, the change feed's last step inside a write);
//   schema changes by a deferred trigger on `_collections` (it fires at COMMIT), so every path that
//   changes a definition (the schema API, an import, a tool writing SQL) reaches the other nodes.
// - The doorbell: `pg_notify('deskbase_bus', <last position>)` in the same transaction (delivered at
//   commit; a payload never carries data, so NOTIFY's 8,000 bytes never matter). Each node LISTENs on a
//   connection of its own; when it closes (a dropped connection, pg_terminate_backend, a failover) the
//   node LISTENs again, retrying, and then reads everything after its last position: nothing missed
//   during the gap is trusted to a notification. A slow poll backs the doorbell up.
// - A node's own record changes are taken in from memory when nothing before them is unread
//   (`committed`), so its own writes cost it no read; anything else is read from the outbox.
// - Old rows are pruned (older than RETAIN_MS, or more than RETAIN_ENTRIES behind the head); a node
//   that finds its next position pruned is told (`missed`) and rebuilds what it derived.
import { randomBytes } from 'node:crypto';
import type postgres from 'postgres';
import type { BusEntry, BusListener, StoreBus, WriteTx } from '../store/contract.js';

type Sql = postgres.Sql;

export const BUS_CHANNEL = 'deskbase_bus';
/** Entries read at a time (a row holds one record change), and the bytes past which a read stops (after one row at least). */
const READ_ROWS = 200;
const READ_BYTES = 2 * 1024 * 1024;
/** The poll behind the doorbell: a missed notification waits at most this long. */
export const POLL_MS = 2000;
/**
 * The statement timeout of the append sent with a COMMIT: it may wait for another node's commit to
 * release the head row, which is no work of this write's (its query budget is not charged, as the wait
 * for the write turn is not), but is bounded all the same.
 */
export const APPEND_TIMEOUT_MS = 10_000;
export const APPEND_SQL = 'SELECT "last", "tx" FROM deskbase_bus_append($1, $2)';
/** How long a failed LISTEN waits before it is tried again. */
const RELISTEN_MS = 250;
/** Entries are kept this long, and at most this many behind the head. */
export const RETAIN_MS = 10 * 60 * 1000;
export const RETAIN_ENTRIES = 20_000;
const PRUNE_MS = 30_000;

/** The session setting naming the node that runs a transaction (the schema trigger reads it). */
export const NODE_SETTING = 'deskbase.node';

/** The bus's tables, functions and trigger, created at open with the system tables (under their lock). */
export const BUS_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "_bus_head" ("one" boolean PRIMARY KEY DEFAULT true CHECK ("one"), "pos" bigint NOT NULL)`,
  `INSERT INTO "_bus_head" ("one", "pos") VALUES (true, 0) ON CONFLICT DO NOTHING`,
  `CREATE TABLE IF NOT EXISTS "_bus_outbox" (
    "pos" bigint PRIMARY KEY NOT NULL,
    "tx" bigint NOT NULL,
    "origin" text NOT NULL,
    "kind" text NOT NULL,
    "data" text NOT NULL,
    "at" timestamptz NOT NULL DEFAULT now()
  )`,
  // items: a JSON array; each element (its text as sent: json keeps it) becomes one entry
  `CREATE OR REPLACE FUNCTION deskbase_bus_append(kind text, items text, OUT last bigint, OUT tx bigint) LANGUAGE plpgsql AS $$
  DECLARE
    n integer := json_array_length(items::json);
  BEGIN
    tx := pg_current_xact_id()::text::bigint;
    IF n = 0 THEN RETURN; END IF;
    UPDATE "_bus_head" SET "pos" = "pos" + n RETURNING "pos" INTO last;
    INSERT INTO "_bus_outbox" ("pos", "tx", "origin", "kind", "data")
      SELECT last - n + e.i, tx, coalesce(current_setting('${NODE_SETTING}', true), ''), kind, e.v::text
      FROM json_array_elements(items::json) WITH ORDINALITY AS e(v, i);
    PERFORM pg_notify('${BUS_CHANNEL}', last::text);
  END $$`,
  `CREATE OR REPLACE FUNCTION deskbase_bus_schema() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM deskbase_bus_append('schema', json_build_array(json_build_object(
      'op', TG_OP,
      'id', CASE WHEN TG_OP = 'DELETE' THEN OLD."id" ELSE NEW."id" END,
      'data', CAST(CASE WHEN TG_OP = 'DELETE' THEN OLD."data" ELSE NEW."data" END AS json)))::text);
    RETURN NULL;
  END $$`,
  `DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'deskbase_bus_schema' AND tgrelid = '"_collections"'::regclass) THEN
      CREATE CONSTRAINT TRIGGER "deskbase_bus_schema" AFTER INSERT OR UPDATE OR DELETE ON "_collections"
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION deskbase_bus_schema();
    END IF;
  END $$`,
];

export async function ensureBusSchema(tx: WriteTx): Promise<void> {
  for (const statement of BUS_SCHEMA) await tx.run(statement);
}

/** A node's name on the bus (the `deskbase.node` setting of its connections). */
export function newNodeId(): string {
  return randomBytes(9).toString('base64url');
}

/** The bus's clock, for tests: its poll and what pruning keeps (POLL_MS, RETAIN_MS, RETAIN_ENTRIES by default). */
export interface BusTiming {
  pollMs?: number;
  retainMs?: number;
  retainEntries?: number;
}

interface OutboxRow {
  pos: number;
  tx: number | string;
  origin: string;
  kind: string;
  data: string;
}

export class PostgresBus implements StoreBus {
  private last = 0;
  private listener: BusListener | null = null;
  private doorbell: Sql | null = null;
  private pumping: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  /** The items each open write transaction appended, one array per statement to send (begin/end). */
  private readonly open = new WeakMap<WriteTx, string[][]>();
  /** LISTEN (re)established, for tests and diagnostics. */
  listens = 0;

  /**
   * `sql`: the store's pool (reads of the outbox, pruning); `connectDoorbell`: a new single connection
   * for LISTEN, told when it closes and when a notification arrives; `report` hears what failed.
   */
  constructor(
    private readonly sql: Sql,
    readonly node: string,
    private readonly connectDoorbell: (on: { notify: (payload: string) => void; close: () => void }) => Sql,
    private readonly report: (error: unknown) => void,
    private readonly timing: BusTiming = {},
  ) {}

  /**
   * Stages the items on the write transaction `tx`: the store appends them as the transaction's last
   * statement, sent with its COMMIT (`staged`), so the head row is locked for one round trip at most.
   */
  append = async (tx: WriteTx, items: readonly string[]): Promise<void> => {
    const staged = this.open.get(tx);
    if (staged === undefined) throw new Error('the bus appends only inside a write transaction of its own store');
    if (items.length > 0) staged.push([...items]);
  };

  /** A write transaction of this store begins: what it appends is kept for its end. */
  begin(tx: WriteTx): void {
    this.open.set(tx, []);
  }

  /** The transaction ends: the items it appended, one array per statement to send before its COMMIT (each as `[item,...]`). */
  end(tx: WriteTx): string[][] {
    const staged = this.open.get(tx) ?? [];
    this.open.delete(tx);
    return staged;
  }

  position = async (): Promise<number> => {
    const [row] = await this.sql.unsafe<{ pos: number }[]>('SELECT "pos" FROM "_bus_head"');
    return Number(row?.pos ?? 0);
  };

  listen = (listener: BusListener, from: number): void => {
    if (this.listener) throw new Error('the bus has a listener already');
    this.listener = listener;
    this.last = from;
    // a notification of a position already taken in (this node's own commit, see committed) reads nothing
    this.doorbell = this.connectDoorbell({ notify: (payload) => Number(payload) > this.last && this.ring(), close: () => this.relisten() });
    this.relisten();
    const poll = setInterval(() => this.ring(), this.timing.pollMs ?? POLL_MS);
    const prune = setInterval(() => void this.prune().catch((err: unknown) => this.closed || this.report(err)), PRUNE_MS);
    poll.unref();
    prune.unref();
    this.timers.push(poll, prune);
  };

  /** LISTEN again (the connection is made again as the statement needs it), retried until it holds; then everything since the last position. */
  private relisten(): void {
    if (this.closed || this.doorbell === null) return;
    this.doorbell.unsafe(`LISTEN "${BUS_CHANNEL}"`).then(
      () => {
        this.listens++;
        this.ring();
      },
      () => {
        if (this.closed) return;
        const retry = setTimeout(() => this.relisten(), RELISTEN_MS);
        retry.unref();
      },
    );
  }

  /**
   * This node committed entries at positions `first`...: its write's record changes, `items`, in
   * transaction `tx`. When nothing before them is unread they are taken in from memory, in their place
   * in the order, instead of being read back (a node's own writes cost no read); otherwise they are
   * read with whatever precedes them.
   */
  committed(first: number, tx: string, items: readonly string[]): void {
    const last = first + items.length - 1;
    if (this.closed || this.listener === null || last <= this.last) return;
    if (this.pumping !== null || this.last !== first - 1) {
      this.ring();
      return;
    }
    this.last = last;
    const listener = this.listener;
    const entries: BusEntry[] = items.map((data, i) => ({ pos: first + i, tx, mine: true, kind: 'records', data }));
    this.pumping = (async () => {
      try {
        await listener.entries(entries);
      } catch (err) {
        this.report(err);
      } finally {
        this.pumping = null;
        if (this.again) this.ring();
      }
    })();
  }

  /** Reads what was committed since the last position (one reader at a time; a ring while reading reads again). */
  ring(): void {
    if (this.closed || this.listener === null) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = (async () => {
      try {
        do {
          this.again = false;
          while (await this.readSome()) { /* a full page: read on */ }
        } while (this.again && !this.closed);
      } catch (err) {
        if (!this.closed) this.report(err);
      } finally {
        this.pumping = null;
      }
    })();
  }

  /** One page of entries after the last position, handed over; true when there may be more. */
  private async readSome(): Promise<boolean> {
    // READ_ROWS rows at most, and no row that starts past READ_BYTES (the first always comes)
    const rows = await this.sql.unsafe<OutboxRow[]>(
      `SELECT "pos", "tx", "origin", "kind", "data" FROM (
        SELECT "pos", "tx", "origin", "kind", "data", sum(octet_length("data")) OVER (ORDER BY "pos") - octet_length("data") AS "before"
        FROM "_bus_outbox" WHERE "pos" > $1 ORDER BY "pos" LIMIT $2) AS page
      WHERE "before" < $3 ORDER BY "pos"`,
      [this.last, READ_ROWS, READ_BYTES],
    );
    if (this.closed || rows.length === 0) return false;
    const listener = this.listener as BusListener;
    if (Number(rows[0].pos) !== this.last + 1) {
      // pruned before this node read them: whatever was built from the missed entries is rebuilt
      this.report(new Error(`realtime between nodes: entries ${this.last + 1}-${Number(rows[0].pos) - 1} were pruned before this node read them; rebuilding`));
      await listener.missed();
    }
    const entries: BusEntry[] = rows.map((r) => ({
      pos: Number(r.pos), tx: String(r.tx), mine: r.origin === this.node, kind: r.kind === 'schema' ? 'schema' : 'records', data: r.data,
    }));
    this.last = entries[entries.length - 1].pos;
    try {
      await listener.entries(entries);
    } catch (err) {
      this.report(err);
    }
    return true; // a page that was not full reads nothing next time: one query more, never a missed row
  }

  /** Deletes the entries older than the retention time or too far behind the head (every PRUNE_MS on each node). */
  async prune(): Promise<void> {
    await this.sql.unsafe(
      `DELETE FROM "_bus_outbox" WHERE "at" < now() - make_interval(secs => $1) OR "pos" <= (SELECT "pos" FROM "_bus_head") - $2`,
      [(this.timing.retainMs ?? RETAIN_MS) / 1000, this.timing.retainEntries ?? RETAIN_ENTRIES],
    );
  }

  /** Stops listening; resolves once a read in progress has ended. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    await this.pumping;
    await this.doorbell?.end({ timeout: 1 }).catch(() => undefined);
  }
}
