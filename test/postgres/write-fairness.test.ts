// The node's write turn shared fairly between clients (store-postgres/store.ts `turn`, fair.ts): one
// write at a time, each client's own writes in the order they asked, between clients round-robin (the
// client whose write just ended to the end of the round), so one client queueing many writes keeps
// another client's write behind one of its own, not behind all of them. What is counted is the order
// the writes committed in, as the database numbered them (a sequence taken inside each write, or over
// HTTP the bus's outbox positions: one write holds the turn at a time, so that order is the turn's),
// never time; what waits is known from pg_locks and the store's own count of writes waiting. The wait
// for the turn is bounded as the wait for a connection is (connectWaitMs): a write the turn does not
// come to is refused with DatabaseBusy's 503, out of the queue, never committed.
import { request } from 'node:http';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DatabaseBusy } from '../../server/store-postgres/errors.js';
import { openPostgresStore, type PostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { startSdkServer } from '../support/sdk-server.js';

let db: FreshDatabase;
/** Holds the advisory lock the first write waits for (one connection: its session's locks). */
let holder: postgres.Sql;
let store: PostgresStore;

/** Resolves once `n` of the store's statements wait for a lock of `type` (pg_locks' locktype). */
async function waitingForLocks(n: number, type = 'advisory'): Promise<void> {
  for (;;) {
    const [{ count }] = await db.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM pg_locks WHERE locktype = ${type} AND NOT granted`;
    if (count >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resolves once `n` writes wait for `on`'s write turn (its own count: they wait in the node, not in PostgreSQL). */
async function writesWaiting(on: PostgresStore, n: number): Promise<void> {
  while (on.writesWaiting < n) await new Promise((r) => setTimeout(r, 10));
}

/** A POST of JSON `body` to `url` from the loopback address `from` (127.0.0.0/8 reaches 127.0.0.1), on a connection of its own; its status. */
function postFrom(from: string, url: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress: from, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** A write for `client` (null: outside any client, the server's own) numbering `name` as it commits; `lock`: it then waits for that advisory lock, holding the turn. */
function write(client: string | null, name: string, lock?: number): Promise<void> {
  const run = () => store.write(async (tx) => {
    await tx.run('INSERT INTO "turns" ("name") VALUES (?)', [name]);
    if (lock !== undefined) await tx.get(`SELECT pg_advisory_xact_lock_shared(${lock}) AS "l"`);
  });
  return client === null ? run() : store.asClient(client, run);
}

/** The names written, in the order they committed (the sequence each write took holding the turn). */
async function committed(): Promise<string[]> {
  return (await db.sql<{ name: string }[]>`SELECT "name" FROM "turns" ORDER BY "seq"`).map((r) => r.name);
}

/**
 * A's first write holds the write turn (waiting for lock `key`) while `queue` asks for theirs, in
 * order, all of them waiting; then the lock goes, and every write ends.
 */
async function behindOneWrite(key: number, queue: () => Promise<void>[]): Promise<void> {
  await db.sql`TRUNCATE "turns" RESTART IDENTITY`;
  await holder.unsafe(`SELECT pg_advisory_lock(${key})`);
  const first = write('A', 'a1', key);
  await waitingForLocks(1);
  const rest = queue();
  await holder.unsafe(`SELECT pg_advisory_unlock(${key})`);
  await Promise.all([first, ...rest]);
}

describePostgres('the write turn shared fairly between clients', () => {
  beforeAll(async () => {
    db = await freshDatabase('write_fairness');
    holder = postgres(db.url, { max: 1, onnotice: () => {} });
    await db.sql`CREATE TABLE "turns" ("seq" bigserial PRIMARY KEY, "name" text NOT NULL)`;
    store = await openPostgresStore({ url: db.url, max: 4 });
  });

  afterAll(async () => {
    await store?.close();
    await holder?.end();
    await db?.drop();
  });

  it('a client queueing 50 writes keeps another client\'s write behind one of them, not all; its own commit in their order', async () => {
    const names = Array.from({ length: 49 }, (_, i) => `a${i + 2}`);
    await behindOneWrite(40, () => [...names.map((name) => write('A', name)), write('B', 'b')]);
    // first come, first served, B's write came after all of A's 50
    expect(await committed()).toEqual(['a1', 'b', ...names]);
  });

  it('round-robin between every client waiting, the server\'s own work one of them; each client\'s writes in the order asked', async () => {
    const names = Array.from({ length: 9 }, (_, i) => `a${i + 2}`);
    await behindOneWrite(41, () => [
      ...names.map((name) => write('A', name)),
      write('B', 'b1'),
      write('B', 'b2'),
      write('C', 'c'),
      write(null, 'server'),
    ]);
    // A's turn ended, it goes to the end of the round: B, C and the server's own first, then A and B
    // alternate while both wait
    expect(await committed()).toEqual(['a1', 'b1', 'c', 'server', 'a2', 'b2', ...names.slice(1)]);
  });

  it('over HTTP: 50 creates at once from one address keep another address\'s create behind one of them, as the bus\'s commit order shows', async () => {
    const team = await openPostgresStore({ url: db.url, max: 4 });
    const sdk = await startSdkServer({ openStore: async () => team });
    const locker = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const notes = await sdk.admin.collections.create({ name: 'notes', createRule: '', fields: [{ name: 'title', type: 'text' }] });
      const url = `${sdk.server.url}/api/collections/notes/records`;
      // the table locked against writes (reads go on): the first create holds the write turn, waiting
      let unlock!: () => void;
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const held = locker.begin(async (t) => {
        await t.unsafe('LOCK TABLE "notes" IN EXCLUSIVE MODE');
        locked();
        await new Promise<void>((r) => (unlock = r));
      });
      await isLocked;
      const first = postFrom('127.0.0.1', url, { title: 'a1' });
      await waitingForLocks(1, 'relation');
      const names = Array.from({ length: 49 }, (_, i) => `a${i + 2}`);
      const flood = names.map((title) => postFrom('127.0.0.1', url, { title }));
      await writesWaiting(team, 49);
      const other = postFrom('127.0.0.2', url, { title: 'b' });
      await writesWaiting(team, 50);
      unlock();
      await held;
      expect(await Promise.all([first, ...flood, other])).toEqual(Array(51).fill(200));
      const order = (await db.sql<{ title: string }[]>`SELECT "data"::json->'f'->>'title' AS "title" FROM "_bus_outbox" WHERE "kind" = 'records' AND "data"::json->>'c' = ${notes.id} ORDER BY "pos"`).map((r) => r.title);
      // first come, first served, the other address's create committed after all 50
      expect(order).toEqual(['a1', 'b', ...names]);
    } finally {
      await locker.end();
      await sdk.server.close();
    }
  });

  it('a write the turn does not come to within the wait is refused with a 503, taken out of the queue, and never commits; the queue serves later writes in order', async () => {
    const bounded = await openPostgresStore({ url: db.url, max: 4, connectWaitMs: 1000 });
    const mine = store;
    store = bounded;
    try {
      await db.sql`TRUNCATE "turns" RESTART IDENTITY`;
      await holder.unsafe('SELECT pg_advisory_lock(43)');
      // A's write holds the turn and does not finish (it waits for the lock the holder keeps)
      const first = write('A', 'a1', 43);
      await waitingForLocks(1);
      const refused = await write('B', 'b').then(() => null, (err: unknown) => err);
      expect(refused).toBeInstanceOf(DatabaseBusy);
      expect((refused as DatabaseBusy).status).toBe(503);
      // named as the wait it is: the write turn, not a connection
      expect((refused as Error).message).toBe('The database is busy: other writes held the write turn for 1 s. Nothing was changed; try again in a moment.');
      // nothing left queued behind it
      expect(bounded.writesWaiting).toBe(0);
      const later = [write('C', 'c1'), write('A', 'a2'), write('C', 'c2')];
      await writesWaiting(bounded, 3);
      await holder.unsafe('SELECT pg_advisory_unlock(43)');
      await Promise.all([first, ...later]);
      // B's write never ran (nor committed once the turn was free), and the turn order of the others is
      // the fair one: A's write ended, C's first, then round-robin
      expect(await committed()).toEqual(['a1', 'c1', 'a2', 'c2']);
      expect(bounded.writesWaiting).toBe(0);
    } finally {
      store = mine;
      await bounded.close();
    }
  });

  it('over HTTP: a create the write turn does not come to within the wait answers 503 in the error envelope, nothing of it stored', async () => {
    // a database of its own: its server sets up its first superuser
    const own = await freshDatabase('write_turn_wait');
    // advisory locks are the database's: the lock the held write waits for is taken on it
    const ownHolder = postgres(own.url, { max: 1, onnotice: () => {} });
    const team = await openPostgresStore({ url: own.url, max: 4, connectWaitMs: 1000 });
    const sdk = await startSdkServer({ openStore: async () => team });
    try {
      const notes = await sdk.admin.collections.create({ name: 'waits', createRule: '', fields: [{ name: 'title', type: 'text' }] });
      const url = `${sdk.server.url}/api/collections/waits/records`;
      await ownHolder.unsafe('SELECT pg_advisory_lock(44)');
      // a write of the server's own holds the turn and does not finish
      const held = team.write((tx) => tx.get('SELECT pg_advisory_xact_lock_shared(44) AS "l"'));
      await waitingForLocks(1);
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'refused' }) });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 503, message: 'The database is busy: other writes held the write turn for 1 s. Nothing was changed; try again in a moment.', data: {} });
      await ownHolder.unsafe('SELECT pg_advisory_unlock(44)');
      await held;
      expect(await postFrom('127.0.0.1', url, { title: 'after' })).toBe(200);
      const [{ count }] = await own.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM "waits"`;
      expect(count).toBe(1);
      const titles = (await own.sql<{ title: string }[]>`SELECT "data"::json->'f'->>'title' AS "title" FROM "_bus_outbox" WHERE "kind" = 'records' AND "data"::json->>'c' = ${notes.id} ORDER BY "pos"`).map((r) => r.title);
      expect(titles).toEqual(['after']);
    } finally {
      // the held write ends (the store closes once it has)
      await ownHolder.end();
      await sdk.server.close();
      await own.drop();
    }
  });

  it('the writes queued when the store closes still commit, in their fair order, before it closes', async () => {
    const closing = await openPostgresStore({ url: db.url, max: 2 });
    const mine = store;
    store = closing;
    try {
      let closed = Promise.resolve();
      await behindOneWrite(42, () => {
        const writes = [write('A', 'a2'), write('B', 'b')];
        closed = closing.close();
        return writes;
      });
      await closed;
      expect(await committed()).toEqual(['a1', 'b', 'a2']);
    } finally {
      store = mine;
    }
  });
});
