// What realtime subscriptions may hold (issue 21, item 1), against a real server with lowered limits:
// per client (distinct options), per client address and in total (subscriptions, distinct shapes,
// characters), each refused with its own envelope naming the limit, the client keeping what it had;
// room coming back as clients go; superusers never locked out; and a client with several shapes still
// getting its events in commit order while a client with one is served first; and the bytes waiting for
// readers, all streams together, bounded without dropping a reader that keeps up, a group's shared
// bytes counted once.
import type { ClientRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import PocketBase, { type RecordSubscription } from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealtimeBroker } from '../../server/core/realtime/broker.js';
import type { RealtimeLimits } from '../../server/core/realtime/subscription-limits.js';
import { FLUSH_OPTIONS } from '../../server/http/routes/realtime-flush.js';
import { EventStream, REALTIME_QUEUE_BYTES, StreamSet } from '../../server/http/routes/realtime-streams.js';
import type { RunningServer } from '../../server/index.js';
import { openEventStream } from '../fixtures/event-stream.js';
import { ADMIN, failure, startSdkServer } from '../support/sdk-server.js';

const LIMITS: RealtimeLimits = {
  clientShapes: 3,
  addressSubscriptions: 12,
  addressShapes: 5,
  addressChars: 600,
  totalSubscriptions: 20,
  totalShapes: 8,
  totalChars: 1000,
};

let server: RunningServer;
let admin: PocketBase;
let client: () => PocketBase;
const streams: ClientRequest[] = [];

/** An event stream from `localAddress` (127.0.0.x: one client address each); resolves with its client id and its closer. */
async function openStream(localAddress: string): Promise<{ id: string; close: () => void }> {
  const { id, req } = await openEventStream(server.url, localAddress);
  streams.push(req);
  return { id, close: () => req.destroy() };
}

async function post(clientId: string, subscriptions: string[], token?: string): Promise<{ status: number; body: { message: string; data: Record<string, { code: string; params: { limit: number; scope: string } }> } }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = token;
  const res = await fetch(`${server.url}/api/realtime`, { method: 'POST', headers, body: JSON.stringify({ clientId, subscriptions }) });
  return { status: res.status, body: res.status === 204 ? { message: '', data: {} } : await res.json() };
}

/** `n` subscriptions to `notes/*` with distinct filters (tag picks them apart). */
const shaped = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `notes/*?options=${encodeURIComponent(JSON.stringify({ query: { filter: `title != "${tag}${i}"` } }))}`);
/** `n` subscriptions sharing one shape (record topics, no options). */
const plain = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `notes/r${String(from + i).padStart(13, '0')}`);

beforeAll(async () => {
  ({ server, admin, client } = await startSdkServer({ limits: { realtime: LIMITS } }));
  await admin.collections.create({
    name: 'notes', type: 'base', fields: [{ name: 'title', type: 'text' }],
    listRule: '', viewRule: '', createRule: '', updateRule: '',
  });
});

afterAll(async () => {
  for (const s of streams) s.destroy();
  await server.close();
});

describe('per client', () => {
  it('more distinct options than a client may use: the SDK gets a 400 naming the limit, and the earlier subscriptions keep working', async () => {
    const pb = client();
    const got: string[] = [];
    for (let i = 0; i < LIMITS.clientShapes; i++) await pb.collection('notes').subscribe('*', (e) => got.push(`${i}:${String(e.record.title)}`), { filter: `title != "x${i}"` });
    const err = await failure(pb.collection('notes').subscribe('*', () => undefined, { filter: 'title != "one too many"' }));
    expect(err.status).toBe(400);
    expect(err.response.message).toBe(`A realtime client may use at most ${LIMITS.clientShapes} distinct subscription options; this one asked for ${LIMITS.clientShapes + 1}.`);
    expect(err.response.data.subscriptions).toEqual({ code: 'realtime_limit', message: expect.any(String), params: { limit: LIMITS.clientShapes, scope: 'client' } });
    await admin.collection('notes').create({ title: 'still-here' });
    await expect.poll(() => got.sort(), { timeout: 5000 }).toEqual(['0:still-here', '1:still-here', '2:still-here']);
    await pb.realtime.unsubscribe();
  });

  it('one shape for many topics costs one: record topics without options fit', async () => {
    const s = await openStream('127.0.0.21');
    expect((await post(s.id, plain(LIMITS.addressSubscriptions))).status).toBe(204);
    expect(server.core.realtime.broker.ledger.usage('127.0.0.21')).toEqual({ subscriptions: LIMITS.addressSubscriptions, shapes: 1, chars: plain(LIMITS.addressSubscriptions).join('').length });
    s.close();
    await expect.poll(() => server.core.realtime.broker.ledger.usage('127.0.0.21').subscriptions).toBe(0);
  });
});

describe('per address and in total', () => {
  it('an address past its shapes, subscriptions or characters gets a 429 naming the limit; another address is not held back; a client going away gives its room back', async () => {
    const a = await openStream('127.0.0.2');
    const b = await openStream('127.0.0.2');
    expect((await post(a.id, shaped('a', 3))).status).toBe(204);
    const shapes = await post(b.id, shaped('b', 3));
    expect(shapes.status).toBe(429);
    expect(shapes.body.message).toBe(`Too many distinct realtime subscription options from this address (at most ${LIMITS.addressShapes}); share options between subscriptions or close other connections.`);
    expect(shapes.body.data.subscriptions).toMatchObject({ code: 'realtime_limit', params: { limit: LIMITS.addressShapes, scope: 'address' } });
    // the same options as `a` cost no new shape
    expect((await post(b.id, shaped('a', 2))).status).toBe(204);
    const subs = await post(b.id, [...shaped('a', 2), ...plain(8)]);
    expect(subs.status).toBe(429);
    expect(subs.body.data.subscriptions.params).toEqual({ limit: LIMITS.addressSubscriptions, scope: 'address' });
    const chars = await post(b.id, [...shaped('a', 2), `notes/*?${'x'.repeat(400)}`]);
    expect(chars.status).toBe(429);
    expect(chars.body.message).toContain(`at most ${LIMITS.addressChars} characters`);
    expect(chars.body.data.subscriptions.params).toEqual({ limit: LIMITS.addressChars, scope: 'address' });
    // b kept what it had; its address holds a's 3 shapes and subscriptions and b's 2
    expect(server.core.realtime.broker.ledger.usage('127.0.0.2')).toMatchObject({ subscriptions: 5, shapes: 3 });
    // another address has its own budget
    const c = await openStream('127.0.0.3');
    expect((await post(c.id, shaped('c', 3))).status).toBe(204);
    // once a goes, b may take its room
    a.close();
    await expect.poll(async () => (await post(b.id, shaped('b', 3))).status, { timeout: 5000 }).toBe(204);
    b.close();
    c.close();
    await expect.poll(() => server.core.realtime.broker.ledger.usage().subscriptions, { timeout: 5000 }).toBe(0);
  });

  it('past the server\'s total a fresh address gets a 429 too; a superuser (the admin UI) is never locked out', async () => {
    const held: { id: string; close: () => void }[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await openStream(`127.0.0.${30 + i}`);
      held.push(s);
      expect((await post(s.id, shaped(`t${i}`, i < 2 ? 3 : 2))).status).toBe(204);
    }
    const fresh = await openStream('127.0.0.40');
    const total = await post(fresh.id, shaped('f', 1));
    expect(total.status).toBe(429);
    expect(total.body.message).toBe(`Too many distinct realtime subscription options on this server (at most ${LIMITS.totalShapes}); share options between subscriptions or close other connections.`);
    expect(total.body.data.subscriptions.params).toEqual({ limit: LIMITS.totalShapes, scope: 'total' });
    // a superuser subscribes with options of its own all the same, and gets its events
    const su = client();
    await su.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    const seen: string[] = [];
    await su.collection('notes').subscribe('*', (e) => seen.push(String(e.record.title)), { filter: 'title ~ "su-"' });
    await admin.collection('notes').create({ title: 'su-1' });
    await expect.poll(() => seen, { timeout: 5000 }).toEqual(['su-1']);
    await su.realtime.unsubscribe();
    for (const s of held) s.close();
    fresh.close();
    await expect.poll(() => server.core.realtime.broker.ledger.usage().subscriptions, { timeout: 5000 }).toBe(0);
  });
});

describe('fan-out order', () => {
  it('a client with several shapes gets every event in commit order; a client with one gets its events too', async () => {
    const many = client();
    const one = client();
    const order: string[] = [];
    const single: string[] = [];
    const record = (tag: string) => (e: RecordSubscription<Record<string, unknown>>) => order.push(`${String(e.record.title)}/${tag}`);
    await many.collection('notes').subscribe('*', record('a'), { filter: 'title != "a"' });
    await many.collection('notes').subscribe('*', record('b'), { filter: 'title != "b"' });
    await many.collection('notes').subscribe('*', record('c'), { fields: 'id,title' });
    await one.collection('notes').subscribe('*', (e) => single.push(String(e.record.title)));
    const titles = Array.from({ length: 8 }, (_, i) => `o${i}`);
    const batch = admin.createBatch();
    for (const title of titles) batch.collection('notes').create({ title });
    await batch.send();
    for (const title of titles.slice(0, 4)) await admin.collection('notes').create({ title: `${title}-single` });
    const expected = [...titles, ...titles.slice(0, 4).map((t) => `${t}-single`)];
    await expect.poll(() => order.length, { timeout: 5000 }).toBe(expected.length * 3);
    await expect.poll(() => single, { timeout: 5000 }).toEqual(expected);
    // each change's three events before the next change's
    expect(order.map((o) => o.split('/')[0])).toEqual(expected.flatMap((t) => [t, t, t]));
    await many.realtime.unsubscribe();
    await one.realtime.unsubscribe();
  });
});

describe('bytes waiting for readers, all streams together', () => {
  /**
   * Three readers that stop reading and one that keeps up (the SDK), 512 KB records written until the
   * three are dropped; returns how many writes that took and what the SDK reader saw.
   */
  async function stalledReaders(realtimeQueueBytes?: number): Promise<{ writes: number; seen: number; sameClient: boolean }> {
    const { server: s, admin: su, client: fresh } = await startSdkServer({ limits: { realtimeQueueBytes } });
    try {
      await su.collections.create({ name: 'big', type: 'base', fields: [{ name: 'body', type: 'text', max: 2_000_000 }], listRule: '', viewRule: '', createRule: '' });
      const paused: Socket[] = [];
      for (let i = 0; i < 3; i++) {
        const socket = connect(s.port, '127.0.0.1');
        paused.push(socket);
        let head = '';
        const id = await new Promise<string>((resolve) => {
          socket.on('data', (chunk: Buffer) => {
            head += chunk.toString();
            const m = /id:(\w+)\nevent:PB_CONNECT/.exec(head);
            if (m) resolve(m[1]);
          });
          socket.write(`GET /api/realtime HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAccept: text/event-stream\r\n\r\n`);
        });
        const res = await fetch(`${s.url}/api/realtime`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: id, subscriptions: ['big/*'] }) });
        expect(res.status).toBe(204);
        socket.pause();
      }
      const reader = fresh();
      let seen = 0;
      await reader.collection('big').subscribe('*', () => { seen++; });
      const first = reader.realtime.clientId;
      const body = 'x'.repeat(512 * 1024);
      let writes = 0;
      while (s.core.realtime.broker.size > 1 && writes < 120) {
        await su.collection('big').create({ body }, { fields: 'id' });
        writes++;
        await s.core.realtime.idle();
        await expect.poll(() => seen, { interval: 5, timeout: 10_000 }).toBe(writes); // the keeping-up reader took it
      }
      await expect.poll(() => seen, { timeout: 10_000 }).toBe(writes);
      const sameClient = reader.realtime.clientId === first && reader.realtime.isConnected;
      await reader.realtime.unsubscribe();
      for (const socket of paused) socket.destroy();
      return { writes, seen, sameClient };
    } finally {
      await s.close();
    }
  }

  it('past the total, readers that are behind are dropped long before their own 4 MiB; the reader that keeps up gets everything', async () => {
    const bounded = await stalledReaders(512 * 1024);
    const perClientOnly = await stalledReaders(1024 * 1024 * 1024);
    console.log(`stalled readers dropped after ${bounded.writes} writes of 512 KB with a 512 KiB total, ${perClientOnly.writes} with only the 4 MiB per client`);
    expect(bounded.sameClient).toBe(true);
    expect(perClientOnly.sameClient).toBe(true);
    // each stalled reader's 4 MiB is 8 writes; the kernel's socket buffers take the same in both runs
    expect(bounded.writes).toBeLessThanOrEqual(perClientOnly.writes - 4);
  }, 120_000);

  it('a message to a whole shape counts once in the total, not once per member: a reader behind is not dropped for bytes its group shares', async () => {
    // a real broker and stream set (what registerRealtime builds), each stream written through its
    // response stream: the readers read it, the one behind does not
    const broker = new RealtimeBroker();
    const set = new StreamSet(broker, 1024 * 1024, FLUSH_OPTIONS);
    broker.groupSink = set.groups;
    const open = (reading: boolean) => {
      let out: EventStream | null = null;
      // as realtime-api.ts opens it: the response's reads tell the stream (`pulled`)
      const body = new ReadableStream<Uint8Array>({ start(controller) { out = new EventStream(set, controller, REALTIME_QUEUE_BYTES); }, pull() { out?.pulled(); } }, { highWaterMark: 0, size: (chunk) => chunk.byteLength });
      const stream = out as unknown as EventStream;
      const client = broker.connect({ send: (m) => stream.send(m), close: () => stream.close() }, '127.0.0.1');
      set.byClient.set(client, stream);
      const reader = body.getReader();
      const got: string[] = [];
      const pump = async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          for (const e of Buffer.from(value).toString('utf8').split('\n\n')) if (e !== '') got.push(/data:\{"i":"([^"]+)"/.exec(e)?.[1] ?? '?');
        }
      };
      if (reading) void pump();
      return { client, stream, got, pump };
    };
    const until = async (check: () => boolean, what: string) => {
      const end = performance.now() + 20_000;
      while (!check()) {
        if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };
    const message = (i: string, bytes: number) => ({ name: 'notes/*', data: JSON.stringify({ i, pad: 'z'.repeat(bytes) }) });
    const readers = Array.from({ length: 20 }, () => open(true));
    const slow = open(false);
    // the slow reader has 300 KB of its own waiting (written, not read): it is behind (over 256 KiB)
    expect(slow.client.send(message('own', 300_000))).toBe(true);
    await until(() => set.queuedTotal >= 300_000 && set.queuedTotal < 310_000, 'its write');
    // one 40 KB message to the shape's 21 members: 840 KB were it counted per member, past the 1 MiB
    // total with the 300 KB; one Buffer held by all, 40 KB, is what it is
    const members = [...readers.map((r) => r.client), slow.client];
    broker.sendGroup(members, message('shared', 40_000));
    await until(() => readers.every((r) => r.got.length === 1), 'the readers');
    expect(broker.size).toBe(21); // the slow reader was not dropped
    expect(set.queuedTotal).toBeGreaterThan(340_000);
    expect(set.queuedTotal).toBeLessThan(350_000); // its 300 KB and the shared 40 KB it still holds, once
    // the slow reader reads: everything, in order; nothing waits and nothing is counted any more
    void slow.pump();
    await until(() => slow.got.length === 2, 'the slow reader');
    expect(slow.got).toEqual(['own', 'shared']);
    await until(() => set.queuedTotal === 0, 'the total back to nothing');
    broker.closeAll();
  });

  it('a member whose own bound its group\'s run would pass is dropped and disconnected when it takes it; the others get it', async () => {
    const broker = new RealtimeBroker();
    const set = new StreamSet(broker, 1024 * 1024 * 1024, FLUSH_OPTIONS);
    broker.groupSink = set.groups;
    const open = (limit: number, reading: boolean) => {
      let out: EventStream | null = null;
      const body = new ReadableStream<Uint8Array>({ start(controller) { out = new EventStream(set, controller, limit); }, pull() { out?.pulled(); } }, { highWaterMark: 0, size: (chunk) => chunk.byteLength });
      const stream = out as unknown as EventStream;
      const client = broker.connect({ send: (m) => stream.send(m), close: () => stream.close() }, '127.0.0.1');
      set.byClient.set(client, stream);
      let got = 0;
      if (reading) {
        void (async () => {
          const reader = body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            got += Buffer.from(value).toString('utf8').split('event:').length - 1;
          }
        })().catch(() => undefined);
      }
      return { client, got: () => got };
    };
    const readers = [open(REALTIME_QUEUE_BYTES, true), open(REALTIME_QUEUE_BYTES, true)];
    const stalled = open(100_000, false); // reads nothing: what it is written stays waiting
    const members = [readers[0].client, stalled.client, readers[1].client];
    const message = (i: number) => ({ name: 'notes/*', data: JSON.stringify({ i, pad: 'z'.repeat(60_000) }) });
    const until = async (check: () => boolean) => {
      const end = performance.now() + 20_000;
      while (!check()) {
        if (performance.now() > end) throw new Error('timed out');
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };
    broker.sendGroup(members, message(1));
    await until(() => readers.every((r) => r.got() === 1));
    expect(broker.size).toBe(3); // 60 KB waiting for the stalled one: within its 100 KB
    broker.sendGroup(members, message(2));
    await until(() => readers.every((r) => r.got() === 2));
    expect(broker.size).toBe(2); // 120 KB would pass it: dropped when it took the run, and disconnected
    broker.closeAll();
  });
});
