// The team server's connections shared fairly between clients (store-postgres/connections.ts): with
// every connection held, one given back goes to the waiting client holding the fewest, round-robin among
// those holding as many, each client's own operations in the order they asked; work outside any client
// (`asClient`: hooks, cron, start-up) is the server's own, a client like the others. What is counted is
// the order in which operations got a connection, never time: each operation's read is answered before
// the next one gets its connection (a pool of one), or the only connection free is given to one of them.
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { startSdkServer } from '../support/sdk-server.js';
import { hooksFolder } from '../hooks/support.js';

let db: FreshDatabase;
/** Holds the advisory locks the blocking reads wait for (one connection: its session's locks). */
let holder: postgres.Sql;
const stores: PostgresStore[] = [];

/** A store of `max` connections on the file's database. */
async function storeOf(max: number): Promise<PostgresStore> {
  const store = await openPostgresStore({ url: db.url, max });
  stores.push(store);
  return store;
}

/**
 * A read that holds its connection until the holder lets lock `key` go: in a snapshot, whose statements
 * are not bounded by the wait for a connection (a bare read's are).
 */
function blocking(store: PostgresStore, client: string, key: number): Promise<unknown> {
  return store.asClient(client, () => store.snapshot((tx) => tx.all(`SELECT 1 AS "n" FROM (SELECT pg_advisory_xact_lock_shared(${key})) AS "l"`)));
}

/** Resolves once `n` of the store's reads wait for an advisory lock (they hold their connections). */
async function waitingForLocks(n: number): Promise<void> {
  for (;;) {
    const [{ count }] = await db.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`;
    if (count >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Both of the store's connections held, each by a blocking read for its client until the holder lets
 * its lock go: `free(i)` lets read `i` end, giving its connection back.
 */
async function holdingTwo(store: PostgresStore, reads: [[string, number], [string, number]]): Promise<{ free: (i: 0 | 1) => Promise<void> }> {
  const [[clientA, keyA], [clientB, keyB]] = reads;
  await holder.unsafe(`SELECT pg_advisory_lock(${keyA}), pg_advisory_lock(${keyB})`);
  const blocked = [blocking(store, clientA, keyA), blocking(store, clientB, keyB)];
  await waitingForLocks(2);
  return {
    free: async (i) => {
      await holder.unsafe(`SELECT pg_advisory_unlock(${reads[i][1]})`);
      await blocked[i];
    },
  };
}

describePostgres('connections shared fairly between clients', () => {
  beforeAll(async () => {
    db = await freshDatabase('pool_fairness');
    holder = postgres(db.url, { max: 1, onnotice: () => {} });
  });

  afterAll(async () => {
    for (const store of stores) await store.close();
    await holder?.end();
    await db?.drop();
  });

  /** Starts a read named `name` for `client` (null: outside any client, the server's own); its name goes into `order` once answered. */
  function read(store: PostgresStore, order: string[], client: string | null, name: string): Promise<void> {
    const run = () => store.all<{ name: string }>('SELECT CAST(? AS text) AS "name"', [name]).then((rows) => void order.push(rows[0].name));
    return client === null ? run() : store.asClient(client, run);
  }

  it('among clients holding as many, round-robin: one client\'s queue does not keep another\'s read, or the server\'s own, behind it', async () => {
    const store = await storeOf(1);
    await holder`SELECT pg_advisory_lock(7)`;
    const held = blocking(store, 'A', 7);
    await waitingForLocks(1);
    const order: string[] = [];
    // in this order, all waiting for the one connection
    const reads = [
      read(store, order, 'A', 'a2'),
      read(store, order, 'A', 'a3'),
      read(store, order, 'B', 'b'),
      read(store, order, null, 'server'),
      read(store, order, 'A', 'a4'),
    ];
    await holder`SELECT pg_advisory_unlock(7)`;
    await held;
    await Promise.all(reads);
    // first come, first served was a2, a3, b, server, a4: B and the server each waited behind two of A's
    expect(order).toEqual(['a2', 'b', 'server', 'a3', 'a4']);
  });

  it('the client holding the fewest connections gets the one given back, before a client that asked first', async () => {
    const store = await storeOf(2);
    const held = await holdingTwo(store, [['A', 8], ['A', 9]]);
    const order: string[] = [];
    const a3 = read(store, order, 'A', 'a3');
    const b = read(store, order, 'B', 'b');
    // one connection comes back (A's first read ends), A still holding the other: it goes to B, which holds none
    await held.free(0);
    await Promise.all([a3, b]);
    expect(order).toEqual(['b', 'a3']);
    await held.free(1);
  });

  it('an operation that gave up its wait (503) leaves nothing counted or queued behind it', async () => {
    const store = await openPostgresStore({ url: db.url, max: 2, connectWaitMs: 2000 });
    stores.push(store);
    await holder`SELECT pg_advisory_lock(12)`;
    const blocked = [blocking(store, 'A', 12), blocking(store, 'A', 12)];
    await waitingForLocks(2);
    const refused = await read(store, [], 'A', 'a3').then(() => null, (err: unknown) => err);
    expect((refused as { status?: number } | null)?.status).toBe(503);
    // said as it is: the database answers, every connection is busy (not "cannot be reached")
    expect((refused as Error).message).toBe('The database is busy: no connection came free within 2 s. Nothing was changed; try again in a moment.');
    // and not taken for an outage: the next operation still waits its whole 2 s, not DOWN_WAIT_MS (1 s)
    const waitedFrom = performance.now();
    const again = await read(store, [], 'A', 'a4').then(() => null, (err: unknown) => err);
    expect((again as { status?: number } | null)?.status).toBe(503);
    expect(performance.now() - waitedFrom).toBeGreaterThanOrEqual(1990);
    await holder`SELECT pg_advisory_unlock(12)`;
    await Promise.all(blocked);
    // A and B hold one connection each; B asks first, then A; A's connection comes back
    const held = await holdingTwo(store, [['A', 13], ['B', 14]]);
    const order: string[] = [];
    const b2 = read(store, order, 'B', 'b2');
    const a2 = read(store, order, 'A', 'a2');
    await held.free(0);
    await Promise.all([a2, b2]);
    // A holds none (its refused wait counted nothing): it goes first; with the wait counted as A's, B would
    // (as many held, B's turn first), and with the refused wait still queued A's connection would go to it
    expect(order).toEqual(['a2', 'b2']);
    await held.free(1);
  });

  it('a write waiting for a connection holds the node\'s write turn: it goes first, so a client holding many keeps no other client\'s write behind its own', async () => {
    const store = await storeOf(2);
    await store.write((tx) => tx.run('CREATE TABLE IF NOT EXISTS "inversion" ("id" TEXT PRIMARY KEY)'));
    const held = await holdingTwo(store, [['H', 20], ['H', 21]]);
    const order: string[] = [];
    const insert = (client: string, id: string) => store.asClient(client, () => store.write((tx) => tx.run('INSERT INTO "inversion" VALUES (?)', [id]))).then(() => void order.push(id));
    // H's write takes the write turn and waits for a connection; V's waits for the turn behind it
    const h = insert('H', 'h-write');
    const v = insert('V', 'v-write');
    await new Promise((r) => setImmediate(r)); // H's write has its turn and waits for a connection (a few microtasks)
    const c = read(store, order, 'C', 'c-read');
    // one of H's connections comes back, H still holding the other
    await held.free(0);
    await Promise.all([h, v, c]);
    // first come, first served: H's write first; by holdings alone C's read went first and H's write,
    // and V's behind it on the turn, after it
    expect(order).toEqual(['h-write', 'c-read', 'v-write']);
    await held.free(1);
  });

  it('a hook\'s host operation counts as the client of the request it runs for, not as the server\'s own work', async () => {
    const store = await storeOf(2);
    const dir = hooksFolder({
      'read.pb.js': `routerAdd("GET", "/api/hook-read", (e) => e.json(200, { n: $app.countRecords("_superusers") }));`,
    });
    const sdk = await startSdkServer({ openStore: async () => store, hooksDir: dir });
    try {
      // the HTTP requests here come from 127.0.0.1: that client holds both connections
      const self = '127.0.0.1';
      // once first: the worker warm, the settings every request reads cached (for a second: their
      // refresh, the server's own read, would take the connection given back first)
      expect((await fetch(`${sdk.server.url}/api/hook-read`)).status).toBe(200);
      const held = await holdingTwo(store, [[self, 30], [self, 31]]);
      let hookDone = false;
      const hooked = fetch(`${sdk.server.url}/api/hook-read`).then((res) => {
        expect(res.status).toBe(200);
        hookDone = true;
      });
      // the hook's read waits for a connection (the route's invocation, then its host call: a few turns)
      for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 10));
      await holder`SELECT pg_advisory_lock(32)`;
      const b = blocking(store, 'B', 32);
      // one connection comes back, 127.0.0.1 still holding the other: it goes to B, holding none, whose
      // read then holds it (lock 32), so the hook's read cannot have run. As the server's own work
      // (holding none, waiting longer) the hook's read took it first, and its request was answered.
      await held.free(0);
      await waitingForLocks(2); // 127.0.0.1's second read and B's
      await Promise.race([hooked, new Promise((r) => setTimeout(r, 300))]);
      expect(hookDone).toBe(false);
      await holder`SELECT pg_advisory_unlock(32)`;
      await Promise.all([b, hooked]);
      await held.free(1);
    } finally {
      await sdk.server.close();
    }
  });
});
