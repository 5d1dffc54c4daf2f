// Realtime through the official PocketBase SDK (with the `eventsource` package as Node's EventSource)
// against a real server: topics, rules as the subscriber, options (filter, expand, fields), sessions
// that end, commit order, unsubscribe, reconnects after a dropped or idle connection, the form's
// errors, and a reader that stops reading.
import { connect } from 'node:net';
import PocketBase, { ClientResponseError, type RecordSubscription } from 'pocketbase';
import { beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.js';
import { ADMIN, sdkSuite } from '../support/sdk-server.js';

// PocketBase's idle timeout (5 minutes) here: the idle tests have a server of their own (below)
const sdk = sdkSuite();

let annId: string;
let bobId: string;

async function signedIn(email: string): Promise<PocketBase> {
  const pb = sdk.client();
  await pb.collection('users').authWithPassword(email, 'password123');
  return pb;
}

type Event = RecordSubscription<Record<string, unknown>>;

/** Collects a subscription's events; `next(pred)` resolves with the first (past or future) event matching. */
function collector() {
  const events: Event[] = [];
  const waiters: { pred: (e: Event) => boolean; resolve: (e: Event) => void }[] = [];
  return {
    events,
    cb: (e: Event) => {
      events.push(e);
      for (const w of [...waiters]) if (w.pred(e)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(e); }
    },
    next(pred: (e: Event) => boolean): Promise<Event> {
      const seen = events.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching event; got ${JSON.stringify(events.map((e) => [e.action, e.record.title]))}`)), 15_000);
        waiters.push({ pred, resolve: (e) => { clearTimeout(timer); resolve(e); } });
      });
    },
  };
}

const titled = (title: string) => (e: Event) => e.record.title === title;
const titles = (events: Event[]) => events.map((e) => `${e.action}:${String(e.record.title)}`);

beforeAll(async () => {
  const users = sdk.server.core.registry.get('users')!.id;
  annId = (await sdk.admin.collection('users').create({ email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123', name: 'Ann' })).id;
  bobId = (await sdk.admin.collection('users').create({ email: 'bob@example.com', password: 'password123', passwordConfirm: 'password123', name: 'Bob' })).id;
  const visible = 'public = true || (@request.auth.id != "" && owner = @request.auth.id)';
  await sdk.admin.collections.create({
    name: 'notes', type: 'base',
    fields: [
      { name: 'title', type: 'text' }, { name: 'public', type: 'bool' }, { name: 'body', type: 'text', max: 2_000_000 },
      { name: 'owner', type: 'relation', collectionId: users, maxSelect: 1 },
    ],
    listRule: visible, viewRule: visible, createRule: '', updateRule: '', deleteRule: '',
  });
});

describe('realtime with the SDK', () => {
  it('a `*` subscriber gets create, update and delete of the records its listRule shows, in commit order', async () => {
    const guest = sdk.client();
    const ann = await signedIn('ann@example.com');
    const g = collector();
    const a = collector();
    await guest.collection('notes').subscribe('*', g.cb);
    await ann.collection('notes').subscribe('*', a.cb);
    const pub = await sdk.admin.collection('notes').create({ title: 'p1', public: true });
    await sdk.admin.collection('notes').create({ title: 'ann-private', owner: annId });
    await sdk.admin.collection('notes').create({ title: 'bob-private', owner: bobId });
    await sdk.admin.collection('notes').update(pub.id, { title: 'p1-edited' });
    await sdk.admin.collection('notes').delete(pub.id);
    await sdk.admin.collection('notes').create({ title: 'end', public: true });
    await g.next(titled('end'));
    await a.next(titled('end'));
    expect(titles(g.events)).toEqual(['create:p1', 'update:p1-edited', 'delete:p1-edited', 'create:end']);
    expect(titles(a.events)).toEqual(['create:p1', 'create:ann-private', 'update:p1-edited', 'delete:p1-edited', 'create:end']);
    expect(g.events[0].record).toMatchObject({ id: pub.id, collectionName: 'notes', public: true });
    await guest.realtime.unsubscribe();
    await ann.realtime.unsubscribe();
  });

  it('a delete is judged as the record was before it; an update that hides a record is not sent', async () => {
    const guest = sdk.client();
    const g = collector();
    await guest.collection('notes').subscribe('*', g.cb);
    const n = await sdk.admin.collection('notes').create({ title: 'shown', public: true });
    await sdk.admin.collection('notes').update(n.id, { title: 'hidden', public: false });
    const m = await sdk.admin.collection('notes').create({ title: 'gone', public: true });
    await sdk.admin.collection('notes').delete(m.id);
    await sdk.admin.collection('notes').create({ title: 'end2', public: true });
    await g.next(titled('end2'));
    expect(titles(g.events)).toEqual(['create:shown', 'create:gone', 'delete:gone', 'create:end2']);
    await guest.realtime.unsubscribe();
  });

  it('each event is judged by the row it carries: a version Bob may not see never reaches him, even when a later write shows the record again', async () => {
    const ann = await signedIn('ann@example.com');
    const bob = await signedIn('bob@example.com');
    const b = collector();
    const note = await ann.collection('notes').create({ title: 'judged-0', public: true, owner: annId });
    await bob.collection('notes').subscribe('*', b.cb);
    await bob.collection('notes').subscribe(note.id, b.cb);
    // one batch: private with a secret, then public and clean; both versions reach the fan-out together,
    // when the stored row is already the public one
    const batch = ann.createBatch();
    batch.collection('notes').update(note.id, { title: 'judged-secret', public: false, body: 'the secret' });
    batch.collection('notes').update(note.id, { title: 'judged-1', public: true, body: '' });
    await batch.send();
    // two quick PATCHes: the second commits before the first one's fan-out runs
    for (let i = 2; i < 7; i++) {
      await Promise.all([
        ann.collection('notes').update(note.id, { title: `judged-secret-${i}`, public: false, body: 'the secret' }),
        ann.collection('notes').update(note.id, { title: `judged-${i}`, public: true, body: '' }),
      ]);
    }
    // shown again whichever of the last pair committed second (on a team server concurrent requests
    // may commit in either order)
    await ann.collection('notes').update(note.id, { title: 'judged-end', public: true, body: '' });
    // the last event twice: the '*' topic's copy and the id topic's
    await expect.poll(() => b.events.filter(titled('judged-end')).length, { timeout: 15_000 }).toBe(2);
    expect(b.events.filter((e) => String(e.record.title).includes('secret') || e.record.body !== '')).toEqual([]);
    expect(titles(b.events)).toContain('update:judged-1');
    await bob.realtime.unsubscribe();
  });

  it('an id subscriber gets that record only, by its viewRule', async () => {
    const ann = await signedIn('ann@example.com');
    const bob = await signedIn('bob@example.com');
    const mine = await sdk.admin.collection('notes').create({ title: 'mine', owner: annId });
    const other = await sdk.admin.collection('notes').create({ title: 'other', public: true });
    const a = collector();
    const b = collector();
    await ann.collection('notes').subscribe(mine.id, a.cb);
    await bob.collection('notes').subscribe(mine.id, b.cb);
    await bob.collection('notes').subscribe(other.id, b.cb);
    await sdk.admin.collection('notes').update(other.id, { title: 'other-2' });
    await sdk.admin.collection('notes').update(mine.id, { title: 'mine-2' });
    await sdk.admin.collection('notes').delete(mine.id);
    await sdk.admin.collection('notes').update(other.id, { title: 'other-3' });
    await b.next(titled('other-3'));
    await a.next((e) => e.action === 'delete');
    expect(titles(a.events)).toEqual(['update:mine-2', 'delete:mine-2']);
    expect(titles(b.events)).toEqual(['update:other-2', 'update:other-3']);
    await ann.realtime.unsubscribe();
    await bob.realtime.unsubscribe();
  });

  it('options: filter narrows, expand and fields shape the record as the REST API would', async () => {
    const guest = sdk.client();
    const ann = await signedIn('ann@example.com');
    const g = collector();
    const a = collector();
    const options = { filter: 'title ~ "opt"', expand: 'owner', fields: 'id,title,expand.owner.name' };
    await guest.collection('notes').subscribe('*', g.cb, options);
    await ann.collection('notes').subscribe('*', a.cb, options);
    await sdk.admin.collection('notes').create({ title: 'skipped', public: true, owner: annId });
    await sdk.admin.collection('notes').create({ title: 'opt-1', public: true, owner: annId });
    const got = await a.next(titled('opt-1'));
    // users' viewRule shows a user only to itself: Ann's expand holds her, the guest's does not
    expect(got.record).toEqual({ id: expect.any(String), title: 'opt-1', expand: { owner: { name: 'Ann' } } });
    const guestGot = await g.next(titled('opt-1'));
    expect(guestGot.record.expand).not.toHaveProperty('owner');
    // each is what the same request answers over REST
    expect(got.record).toEqual(await ann.collection('notes').getOne(got.record.id as string, options));
    expect(guestGot.record).toEqual(await guest.collection('notes').getOne(got.record.id as string, options));
    expect(titles(g.events)).toEqual(['create:opt-1']);
    await guest.realtime.unsubscribe();
    await ann.realtime.unsubscribe();
  });

  it('a subscriber whose session ends stops getting what needed it; public events go on', async () => {
    const ann = await signedIn('ann@example.com');
    const a = collector();
    await ann.collection('notes').subscribe('*', a.cb);
    await sdk.admin.collection('notes').create({ title: 'before', owner: annId });
    await a.next(titled('before'));
    // sign-out from another copy of the same token ends the session
    const copy = sdk.client();
    copy.authStore.save(ann.authStore.token, ann.authStore.record);
    await copy.send('/api/session', { method: 'DELETE' });
    await sdk.admin.collection('notes').create({ title: 'after', owner: annId });
    await sdk.admin.collection('notes').create({ title: 'public-after', public: true });
    await a.next(titled('public-after'));
    expect(titles(a.events)).toEqual(['create:before', 'create:public-after']);
    await ann.realtime.unsubscribe();
  });

  it('a password change ends the other sessions, and their subscribers go back to public events', async () => {
    const bob = await signedIn('bob@example.com');
    const b = collector();
    await bob.collection('notes').subscribe('*', b.cb);
    const changer = await signedIn('bob@example.com');
    try {
      await changer.collection('users').update(bobId, { oldPassword: 'password123', password: 'password456', passwordConfirm: 'password456' });
      await sdk.admin.collection('notes').create({ title: 'bob-secret', owner: bobId });
      await sdk.admin.collection('notes').create({ title: 'bob-public', public: true });
      await b.next(titled('bob-public'));
      expect(titles(b.events)).toEqual(['create:bob-public']);
      await bob.realtime.unsubscribe();
    } finally {
      await sdk.admin.collection('users').update(bobId, { password: 'password123', passwordConfirm: 'password123' });
    }
  });

  it('unsubscribe stops the events and closes the connection once nothing is left', async () => {
    const guest = sdk.client();
    const g = collector();
    const unsubscribe = await guest.collection('notes').subscribe('*', g.cb);
    await sdk.admin.collection('notes').create({ title: 'u1', public: true });
    await g.next(titled('u1'));
    await unsubscribe();
    expect(guest.realtime.isConnected).toBe(false);
    const other = collector();
    const watcher = sdk.client();
    await watcher.collection('notes').subscribe('*', other.cb);
    await sdk.admin.collection('notes').create({ title: 'u2', public: true });
    await other.next(titled('u2'));
    expect(titles(g.events)).toEqual(['create:u1']);
    await watcher.realtime.unsubscribe();
  });

  it('the SDK reconnects and resubscribes after the server drops the connection', async () => {
    const guest = sdk.client();
    const g = collector();
    let connects = 0;
    await guest.realtime.subscribe('PB_CONNECT', () => { connects++; });
    await guest.collection('notes').subscribe('*', g.cb);
    const first = guest.realtime.clientId;
    sdk.server.core.realtime.broker.disconnect(first);
    await expect.poll(() => guest.realtime.clientId !== first && guest.realtime.isConnected, { timeout: 5000 }).toBe(true);
    await sdk.admin.collection('notes').create({ title: 'after-drop', public: true });
    await g.next(titled('after-drop'));
    expect(connects).toBeGreaterThanOrEqual(2);
    await guest.realtime.unsubscribe();
  });
});

describe('idle connections (a server of their own, closing them after 1.5 s)', () => {
  // not the other tests' server: at 1.5 s any step of theirs that took longer (a sign-in's hash on a
  // loaded machine takes seconds) closed their connections, and the SDK's reconnect lost the events
  // meanwhile or posted a subscription with no client id (a 400 where the test expected a 403)
  const idle = sdkSuite({ realtimeIdleMs: 1500 });
  beforeAll(async () => {
    await idle.admin.collections.create({ name: 'notes', type: 'base', fields: [{ name: 'title', type: 'text' }], listRule: '', viewRule: '' });
  });

  it('an idle connection is closed (as PocketBase does after 5 minutes; 1.5 s here) and the SDK reconnects', async () => {
    const guest = idle.client();
    const ids: string[] = [];
    await guest.realtime.subscribe('PB_CONNECT', (e: { clientId: string }) => { ids.push(e.clientId); });
    await guest.collection('notes').subscribe('nothing-happens-here', () => undefined);
    await expect.poll(() => ids.length, { timeout: 8000, interval: 200 }).toBeGreaterThanOrEqual(2);
    expect(new Set(ids).size).toBe(ids.length);
    await guest.realtime.unsubscribe();
  });

  it('a connection that gets messages is not idle, though they came to its whole subscriber shape at once', async () => {
    // guests subscribed to `*` are one shape: each message reaches them as one group (broker.sendGroup),
    // whose writes, not a stamp per client, keep their idle timers (1.5 s here) from closing them
    const guests = [idle.client(), idle.client()];
    const ids: string[][] = [[], []];
    const got = guests.map(() => collector());
    for (const [i, guest] of guests.entries()) {
      await guest.realtime.subscribe('PB_CONNECT', (e: { clientId: string }) => { ids[i].push(e.clientId); });
      await guest.collection('notes').subscribe('*', got[i].cb);
    }
    // a message every 400 ms from the first, whatever a create took (on a loaded machine 400 ms after
    // each create's answer could leave a gap past the idle timeout)
    const from = performance.now();
    for (let n = 0; n < 9; n++) {
      await new Promise((resolve) => setTimeout(resolve, from + n * 400 - performance.now()));
      await idle.admin.collection('notes').create({ title: `busy-${n}` });
    }
    await Promise.all(got.map((g) => g.next(titled('busy-8'))));
    expect(ids).toEqual([[ids[0][0]], [ids[1][0]]]); // 3.6 s of messages: never closed, never reconnected
    expect(got.map((g) => g.events.filter((e) => String(e.record.title).startsWith('busy-')).length)).toEqual([9, 9]);
    for (const guest of guests) await guest.realtime.unsubscribe();
  });
});

describe('records imported in bulk', () => {
  it('reach subscribers once, as the API shows them, under the list rule', async () => {
    await sdk.admin.collections.create({
      name: 'imported', type: 'base',
      fields: [
        { name: 'title', type: 'text' }, { name: 'public', type: 'bool' }, { name: 'n', type: 'number' },
        { name: 'meta', type: 'json' }, { name: 'tags', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 },
      ],
      listRule: 'public = true', viewRule: 'public = true',
    });
    const guest = sdk.client();
    const g = collector();
    await guest.collection('imported').subscribe('*', g.cb);
    // numbers as JSON values, text that reads as a number, a fraction: the forms a column's affinity may change
    const rows = [
      { title: 'i1', public: true, n: 2.5, meta: 5, tags: ['a', 'c'] },
      { title: 'i2', public: false, n: 1, meta: { k: [1, '2'] }, tags: [] },
      { title: 'i3', public: true, n: -7, meta: '12', tags: ['b'] },
    ];
    const res = await fetch(`${sdk.server.url}/api/collections/imported/records/import?format=ndjson`, {
      method: 'POST', headers: { authorization: sdk.admin.authStore.token, 'content-type': 'application/x-ndjson' },
      body: rows.map((r) => JSON.stringify(r)).join('\n'),
    });
    expect(res.status).toBe(200);
    const last = await g.next(titled('i3'));
    expect(titles(g.events)).toEqual(['create:i1', 'create:i3']);
    for (const e of [g.events[0], last]) {
      expect(e.record).toEqual(await sdk.admin.collection('imported').getOne(e.record.id as string));
    }
    await guest.collection('imported').unsubscribe();
  });
});

describe('the server\'s connection limits', () => {
  it('a quiet event stream outlives the socket inactivity timeout (only the realtime idle timer ends it)', async () => {
    // no sign-in here: a password hash under a loaded machine could itself outlast so short a timeout
    const quiet = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, limits: { idleMs: 500 } });
    try {
      await quiet.core.collections.create({ name: 'pings', type: 'base', fields: [{ name: 'title', type: 'text' }], listRule: '', viewRule: '', createRule: '' }, quiet.core.internalContext());
      const guest = new PocketBase(quiet.url);
      const got: string[] = [];
      await guest.collection('pings').subscribe('*', (e) => got.push(String(e.record.title)));
      const id = guest.realtime.clientId;
      await new Promise((resolve) => setTimeout(resolve, 1500)); // three times the inactivity timeout
      await guest.collection('pings').create({ title: 'still here' });
      await expect.poll(() => got, { timeout: 5000 }).toEqual(['still here']);
      expect(guest.realtime.clientId).toBe(id); // the same connection, not a reconnect
      await guest.realtime.unsubscribe();
    } finally {
      await quiet.close();
    }
  });
});

describe('schema changes', () => {
  it('go to superusers subscribed to _collections/* (the admin UI), never to others', async () => {
    const su = sdk.client();
    await su.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    const ann = await signedIn('ann@example.com');
    const seen: unknown[] = [];
    const annSeen: unknown[] = [];
    await su.realtime.subscribe('_collections/*', (e) => seen.push(e));
    await ann.realtime.subscribe('_collections/*', (e) => annSeen.push(e));
    await sdk.admin.collections.create({ name: 'scratch', type: 'base', fields: [{ name: 't', type: 'text' }] });
    await sdk.admin.collections.delete('scratch');
    await expect.poll(() => seen.length, { timeout: 5000 }).toBe(2);
    expect(seen).toEqual([
      { action: 'create', record: expect.objectContaining({ name: 'scratch', type: 'base', system: false }) },
      { action: 'delete', record: expect.objectContaining({ name: 'scratch' }) },
    ]);
    expect(annSeen).toEqual([]);
    await su.realtime.unsubscribe();
    await ann.realtime.unsubscribe();
  });
});

describe('the subscribe form', () => {
  async function post(body: unknown, token?: string): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = token;
    return fetch(`${sdk.server.url}/api/realtime`, { method: 'POST', headers, body: JSON.stringify(body) });
  }

  it('an unknown client is 404; errors name the field; another identity than the bound one is 403', async () => {
    expect((await post({ clientId: 'nope', subscriptions: [] })).status).toBe(404);
    const bad = await post({ clientId: '', subscriptions: ['x'.repeat(2501)] });
    expect(bad.status).toBe(400);
    const body = await bad.json() as { data: Record<string, unknown> };
    expect(Object.keys(body.data).sort()).toEqual(['clientId', 'subscriptions']);
    const ann = await signedIn('ann@example.com');
    await ann.collection('notes').subscribe('*', () => undefined);
    const bob = await signedIn('bob@example.com');
    const err = await bob.send('/api/realtime', { method: 'POST', body: { clientId: ann.realtime.clientId, subscriptions: ['notes/*'] } }).catch((e: unknown) => e);
    expect((err as ClientResponseError).status).toBe(403);
    // a guest cannot drop the bound identity either
    expect((await post({ clientId: ann.realtime.clientId, subscriptions: [] })).status).toBe(403);
    await ann.realtime.unsubscribe();
  });
});

describe('a reader that stops reading', () => {
  it('is disconnected once its queue passes the bound, and the server keeps serving', async () => {
    const socket = connect(sdk.server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let head = '';
    const clientId = await new Promise<string>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString();
        const m = /event:PB_CONNECT\ndata:\{"clientId":"(\w+)"\}/.exec(head);
        if (m) resolve(m[1]);
      });
      socket.write(`GET /api/realtime HTTP/1.1\r\nHost: 127.0.0.1:${sdk.server.port}\r\nAccept: text/event-stream\r\n\r\n`);
    });
    expect((await post({ clientId, subscriptions: ['notes/*'] })).status).toBe(204);
    socket.pause(); // reads nothing more: the kernel's buffers fill, then the server's queue
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const big = 'x'.repeat(1024 * 1024);
    let writes = 0;
    // its own client, not the broker's count: a client of a test above may still be closing (its
    // unsubscribe answered, its socket not yet seen closed), and the count went down by that one
    const connected = () => [...(sdk.server.core.realtime.broker.subscribers('notes/*')?.keys() ?? [])].some((c) => c.id === clientId);
    while (connected() && writes < 60) {
      await sdk.admin.collection('notes').create({ title: `big-${writes++}`, public: true, body: big }, { fields: 'id' });
      await sdk.server.core.realtime.idle();
    }
    expect(connected()).toBe(false);
    expect(writes).toBeLessThan(60);
    socket.resume();
    await closed;
    expect((await fetch(`${sdk.server.url}/api/health`)).status).toBe(200);
  }, 90_000); // about 5 s alone: the kernel's socket buffers take several MB before the server's queue does
});

async function post(body: unknown): Promise<Response> {
  return fetch(`${sdk.server.url}/api/realtime`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
