// The node's write turn shared fairly between clients (store-postgres/store.ts `turn`, fair.ts): one
// write at a time, each client's own writes in the order they asked, between clients round-robin (the
// client whose write just ended to the end of the round), so one client queueing many writes keeps
// another client's write behind one of its own, not behind all of them. What is counted is the order
// the writes committed in, as the database numbered them (a sequence taken inside each write: one
// write holds the turn at a time, so that order is the turn's), never time.
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';

let db: FreshDatabase;
/** Holds the advisory lock the first write waits for (one connection: its session's locks). */
let holder: postgres.Sql;
let store: PostgresStore;

/** Resolves once `n` of the store's statements wait for an advisory lock. */
async function waitingForLocks(n: number): Promise<void> {
  for (;;) {
    const [{ count }] = await db.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`;
    if (count >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
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

  it('the writes queued when the store closes still commit, in their fair order, before it closes', async () => {
    const closing = await openPostgresStore({ url: db.url, max: 2 });
    const mine = store;
    store = closing;
    try {
      let closed: Promise<void> | null = null;
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
