// Realtime and the collection registry between two team-server nodes: two real HTTP servers on one
// PostgreSQL database, the official SDK's realtime over real sockets. A subscriber on node B gets node
// A's create, update and delete (a record past 8 KB too) in commit order under its rules; concurrent
// writes on both nodes reach every subscriber on either node in one order, the commit order; a
// collection created on A is usable on B within a second and a rule tightened on A is enforced on B
// within a second; a session signed out on A is refused by B at once and its stream open on B hears
// only what a guest may; a field made hidden on A is left out of B's answers within a second and out
// of what B's subscribers hear; the doorbell's connections killed, subscribers still get what follows.
import { EventSource } from 'eventsource';
import PocketBase, { type RecordSubscription } from 'pocketbase';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { ADMIN, setUpAdmin } from '../support/sdk-server.js';

(globalThis as { EventSource?: unknown }).EventSource ??= EventSource;

type Event = RecordSubscription<Record<string, unknown>>;

let db: FreshDatabase;
let nodeA: RunningServer;
let nodeB: RunningServer;
let adminA: PocketBase;
let annId = '';
let bobId = '';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function client(server: RunningServer): PocketBase {
  const pb = new PocketBase(server.url);
  pb.autoCancellation(false);
  return pb;
}

async function signedIn(server: RunningServer, email: string): Promise<PocketBase> {
  const pb = client(server);
  await pb.collection('users').authWithPassword(email, 'password123');
  return pb;
}

/** A subscription's events; `until(n)` waits for n of them. */
function collector() {
  const events: Event[] = [];
  return {
    events,
    cb: (e: Event) => void events.push(e),
    async until(pred: () => boolean, what: string, ms = 10_000): Promise<void> {
      const end = Date.now() + ms;
      while (!pred()) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(events.map((e) => [e.action, e.record.title]))}`);
        await sleep(20);
      }
    },
  };
}

const titles = (events: Event[]) => events.map((e) => `${e.action}:${String(e.record.title)}`);

/** Polls `attempt` until it stops throwing; answers how long that took. */
async function timeUntil(attempt: () => Promise<unknown>, ms = 5000): Promise<number> {
  const start = performance.now();
  for (;;) {
    try {
      await attempt();
      return performance.now() - start;
    } catch (err) {
      if (performance.now() - start > ms) throw err;
      await sleep(10);
    }
  }
}

async function node(): Promise<RunningServer> {
  // the poll behind the doorbell made too slow to matter: events arrive by the doorbell and its catch-up
  return startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, openStore: () => openPostgresStore({ url: db.url, max: 4, busTiming: { pollMs: 3_600_000 } }) });
}

describePostgres('realtime and the registry between two nodes', () => {
  beforeAll(async () => {
    db = await freshDatabase('rt_nodes');
    nodeA = await node();
    await setUpAdmin(nodeA);
    nodeB = await node();
    adminA = client(nodeA);
    await adminA.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    const user = (email: string, name: string) => adminA.collection('users').create({ email, name, password: 'password123', passwordConfirm: 'password123' });
    annId = (await user('ann@example.com', 'Ann')).id;
    bobId = (await user('bob@example.com', 'Bob')).id;
    const visible = 'public = true || (@request.auth.id != "" && owner = @request.auth.id)';
    await adminA.collections.create({
      name: 'notes', type: 'base',
      fields: [
        { name: 'title', type: 'text' }, { name: 'public', type: 'bool' }, { name: 'body', type: 'text', max: 2_000_000 },
        { name: 'owner', type: 'relation', collectionId: nodeA.core.registry.get('users')!.id, maxSelect: 1 },
      ],
      listRule: visible, viewRule: visible, createRule: '', updateRule: '', deleteRule: '',
    });
  });
  afterAll(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await db?.drop();
  });

  it('a subscriber on B gets A\'s create, update and delete (one past 8 KB too) in commit order, under its rules', async () => {
    await timeUntil(() => client(nodeB).collection('notes').getList(1, 1));
    const guest = client(nodeB);
    const ann = await signedIn(nodeB, 'ann@example.com');
    const bob = await signedIn(nodeB, 'bob@example.com');
    const [g, a, b] = [collector(), collector(), collector()];
    await guest.collection('notes').subscribe('*', g.cb);
    await ann.collection('notes').subscribe('*', a.cb);
    await bob.collection('notes').subscribe('*', b.cb);
    const notes = adminA.collection('notes');
    const pub = await notes.create({ title: 'p1', public: true });
    await notes.create({ title: 'ann-private', owner: annId });
    await notes.create({ title: 'bob-private', owner: bobId });
    await notes.update(pub.id, { title: 'p1-edited' });
    const big = 'b'.repeat(20_000);
    const large = await notes.create({ title: 'large', public: true, body: big });
    await notes.update(large.id, { title: 'large-edited' });
    await notes.delete(large.id);
    await notes.delete(pub.id);
    await notes.create({ title: 'end', public: true });
    for (const c of [g, a, b]) await c.until(() => c.events.some((e) => e.record.title === 'end'), 'end');
    const shared = ['create:p1', 'update:p1-edited', 'create:large', 'update:large-edited', 'delete:large-edited', 'delete:p1-edited', 'create:end'];
    expect(titles(g.events)).toEqual(shared);
    expect(titles(a.events)).toEqual(['create:p1', 'create:ann-private', ...shared.slice(1)]);
    expect(titles(b.events)).toEqual(['create:p1', 'create:bob-private', ...shared.slice(1)]);
    // the record past NOTIFY's 8,000 bytes arrives whole, the deleted one included
    for (const action of ['create', 'update', 'delete']) expect(g.events.find((e) => e.action === action && String(e.record.title).startsWith('large'))?.record.body).toBe(big);
    await Promise.all([guest, ann, bob].map((pb) => pb.realtime.unsubscribe()));
  });

  it('concurrent writes on both nodes reach every subscriber on either node in one order, the commit order', async () => {
    const subscribers = [client(nodeA), client(nodeA), client(nodeB), client(nodeB)];
    const seen = subscribers.map(() => collector());
    for (let i = 0; i < subscribers.length; i++) await subscribers[i].collection('notes').subscribe('*', seen[i].cb);
    const adminB = client(nodeB);
    await adminB.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    // two chains per node, each a create and an update after the other: writes of both nodes overlap
    // (more at once would measure this machine's load against the query budget, not the order)
    const writes: Promise<unknown>[] = [];
    for (let chain = 0; chain < 4; chain++) {
      const on = chain % 2 === 0 ? adminA : adminB;
      writes.push((async () => {
        for (let i = chain; i < 32; i += 4) {
          const r = await on.collection('notes').create({ title: `c${i}`, public: true });
          await on.collection('notes').update(r.id, { title: `c${i}-u` });
        }
      })());
    }
    await Promise.all(writes);
    for (const s of seen) await s.until(() => s.events.length >= 64, '64 events');
    const orders = seen.map((s) => s.events.map((e) => `${e.action}:${e.record.id}`));
    for (const o of orders.slice(1)) expect(o).toEqual(orders[0]);
    // the commit order, as the outbox's positions record it
    const committed = await db.sql<{ data: string }[]>`SELECT "data" FROM "_bus_outbox" WHERE "kind" = 'records' ORDER BY "pos"`;
    const order = committed.map((r) => JSON.parse(r.data) as { a: string; f: { id: string; title: string } | null })
      .filter((w) => w.f !== null && /^c\d+/.test(w.f.title)).map((w) => `${w.a}:${w.f!.id}`);
    expect(orders[0]).toEqual(order);
    // and the writes of both nodes are interleaved in it (the test would prove nothing otherwise)
    const byNode = seen[0].events.map((e) => Number(String(e.record.title).slice(1).split('-')[0]) % 2);
    expect(new Set(byNode).size).toBe(2);
    await Promise.all(subscribers.map((pb) => pb.realtime.unsubscribe()));
  });

  it('a collection created on A is usable on B within a second; a rule tightened on A is enforced on B within a second', async () => {
    const adminB = client(nodeB);
    await adminB.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    const watcher = collector();
    await adminB.realtime.subscribe('_collections/*', (e) => watcher.cb(e as unknown as Event));
    await adminA.collections.create({ name: 'tasks', type: 'base', fields: [{ name: 'title', type: 'text' }], listRule: '', viewRule: '', createRule: '' });
    const guestB = client(nodeB);
    const created = await timeUntil(() => guestB.collection('tasks').create({ title: 'from B' }));
    expect(created).toBeLessThan(1000);
    expect((await guestB.collection('tasks').getList(1, 10)).items.map((r) => r.title)).toEqual(['from B']);
    await adminA.collections.update('tasks', { listRule: null });
    const tightened = await timeUntil(async () => {
      const refused = await guestB.collection('tasks').getList(1, 10).then(() => false, (e: { status: number }) => e.status === 403);
      if (!refused) throw new Error('still listed');
    });
    expect(tightened).toBeLessThan(1000);
    await adminA.collections.delete('tasks');
    await timeUntil(async () => {
      if (nodeB.core.registry.get('tasks') !== undefined) throw new Error('still known on B');
    }, 1000);
    await watcher.until(() => watcher.events.length >= 3, 'three schema events');
    expect(watcher.events.map((e) => `${e.action}:${String((e.record as { name?: string }).name)}`)).toEqual(['create:tasks', 'update:tasks', 'delete:tasks']);
    await adminB.realtime.unsubscribe();
  });

  it('an auth record deleted on A ends its realtime connection on B', async () => {
    const carol = await adminA.collection('users').create({ email: 'carol@example.com', password: 'password123', passwordConfirm: 'password123' });
    const pb = await signedIn(nodeB, 'carol@example.com');
    await pb.collection('notes').subscribe('*', () => {});
    const clientsOf = () => [...(nodeB.core.realtime.broker as unknown as { clients: Map<string, { auth: { record: { id: unknown } } | null }> }).clients.values()]
      .filter((c) => c.auth?.record.id === carol.id).length;
    expect(clientsOf()).toBe(1);
    await adminA.collection('users').delete(carol.id);
    await timeUntil(async () => {
      if (clientsOf() !== 0) throw new Error('still connected');
    }, 2000);
    pb.realtime.unsubscribe().catch(() => undefined);
  });

  it('a session signed out on A: B refuses its token at its next request, and its stream open on B hears only what a guest may', async () => {
    const ann = await signedIn(nodeB, 'ann@example.com');
    const token = ann.authStore.token;
    const notes = adminA.collection('notes');
    const mine = await notes.create({ title: 'ann-before', owner: annId });
    const view = () => fetch(`${nodeB.url}/api/collections/notes/records/${mine.id}`, { headers: { authorization: token } }).then((r) => r.status);
    expect(await view()).toBe(200);
    const c = collector();
    await ann.collection('notes').subscribe('*', c.cb);
    await notes.create({ title: 'ann-while-signed-in', owner: annId });
    await c.until(() => c.events.some((e) => e.record.title === 'ann-while-signed-in'), 'ann-while-signed-in');
    expect((await fetch(`${nodeA.url}/api/session`, { method: 'DELETE', headers: { authorization: token } })).status).toBe(204);
    expect(await view()).toBe(404);
    await notes.create({ title: 'ann-after-sign-out', owner: annId });
    await notes.create({ title: 'public-after-sign-out', public: true });
    await c.until(() => c.events.some((e) => e.record.title === 'public-after-sign-out'), 'public-after-sign-out');
    expect(titles(c.events)).toEqual(['create:ann-while-signed-in', 'create:public-after-sign-out']);
    ann.realtime.unsubscribe().catch(() => undefined);
  });

  it('a field made hidden on A: B leaves it out of its answers within a second, and out of what its subscribers hear', async () => {
    const notes = adminA.collection('notes');
    const shown = await notes.create({ title: 'hidden-later', public: true, body: 'secret body' });
    const guest = client(nodeB);
    expect((await guest.collection('notes').getOne(shown.id)).body).toBe('secret body');
    const c = collector();
    await guest.collection('notes').subscribe('*', c.cb);
    const collection = await adminA.collections.getOne('notes');
    await adminA.collections.update('notes', { fields: collection.fields.map((f: { name: string }) => (f.name === 'body' ? { ...f, hidden: true } : f)) });
    const took = await timeUntil(async () => {
      if ('body' in (await guest.collection('notes').getOne(shown.id))) throw new Error('body still shown');
    });
    expect(took).toBeLessThan(1000);
    await notes.create({ title: 'after-hidden', public: true, body: 'secret body' });
    await c.until(() => c.events.some((e) => e.record.title === 'after-hidden'), 'after-hidden');
    expect(c.events.find((e) => e.record.title === 'after-hidden')?.record).not.toHaveProperty('body');
    await guest.realtime.unsubscribe();
  });

  it('subscribers on B still get A\'s writes after both nodes\' doorbell connections are killed', async () => {
    const guest = client(nodeB);
    const g = collector();
    await guest.collection('notes').subscribe('*', g.cb);
    const killed = await db.sql<{ ok: boolean }[]>`
      SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
      WHERE datname = ${db.name} AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`;
    expect(killed.length).toBe(2);
    await adminA.collection('notes').create({ title: 'during', public: true });
    await g.until(() => g.events.length >= 1, 'the write made while the doorbell was down');
    await adminA.collection('notes').create({ title: 'after', public: true });
    await g.until(() => g.events.length >= 2, 'the write after');
    expect(titles(g.events)).toEqual(['create:during', 'create:after']);
    await guest.realtime.unsubscribe();
  });
});
