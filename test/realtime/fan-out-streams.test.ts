// How realtime messages reach the sockets under many subscribers (issue 28): a message for a whole
// subscriber shape is queued once for the group (server/http/routes/realtime-streams.ts), each member
// taking it before anything else comes for it, so every subscriber's events keep commit order however
// its topics' groups interleave (end to end, and message by message with single sends between); a
// slow reader holds no one up; and a socket that has not taken its last write is not written again
// until it drains, then gets everything queued meanwhile, in order.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealtimeBroker, type RealtimeMessage } from '../../server/core/realtime/broker.js';
import { FLUSH_OPTIONS } from '../../server/http/routes/realtime-flush.js';
import { EventStream, REALTIME_QUEUE_BYTES, REALTIME_QUEUE_TOTAL_BYTES, StreamSet } from '../../server/http/routes/realtime-streams.js';
import { sdkSuite } from '../support/sdk-server.js';

const sdk = sdkSuite();

/** A raw event stream: its client id, the record ids of its events in the order they came, its socket. */
interface RawStream {
  id: string;
  events: { topic: string; action: string; record: string }[];
  socket: Socket;
  /** Bytes of the body read so far. */
  bytes: () => number;
}

async function openRaw(port: number): Promise<RawStream> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  let body = 0;
  const stream: RawStream = { id: '', events: [], socket, bytes: () => body };
  return new Promise((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      body += chunk.byteLength;
      // complete events only: `event:` and `data:` lines ended by a blank line
      let end = text.indexOf('\n\n');
      while (end >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const connected = /event:PB_CONNECT\ndata:\{"clientId":"(\w+)"\}/.exec(block);
        if (connected) {
          stream.id = connected[1];
          resolve(stream);
        } else {
          const m = /event:([^\n]+)\ndata:(.*)$/s.exec(block);
          if (m) {
            const data = JSON.parse(m[2]) as { action: string; record: { id: string } };
            stream.events.push({ topic: m[1], action: data.action, record: data.record.id });
          }
        }
        end = text.indexOf('\n\n');
      }
    });
    socket.write(`GET /api/realtime HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
  });
}

async function subscribe(clientId: string, subscriptions: string[]): Promise<void> {
  const res = await fetch(`${sdk.server.url}/api/realtime`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId, subscriptions }) });
  expect(res.status).toBe(204);
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const streams: RawStream[] = [];

beforeAll(async () => {
  for (const name of ['notes', 'tasks']) {
    await sdk.admin.collections.create({ name, type: 'base', fields: [{ name: 'title', type: 'text' }, { name: 'body', type: 'text', max: 2_000_000 }], listRule: '', viewRule: '' });
  }
});

afterAll(() => {
  for (const s of streams) s.socket.destroy();
});

describe('realtime messages to many subscribers', () => {
  it('every subscriber gets its events in commit order, its topics\' groups interleaved in one batch and across writes', async () => {
    // 40 guests: half on both collections, half on notes alone, one also on a record of its own
    const both: RawStream[] = [];
    const notesOnly: RawStream[] = [];
    for (let i = 0; i < 40; i++) {
      const s = await openRaw(sdk.server.port);
      streams.push(s);
      if (i % 2 === 0) {
        await subscribe(s.id, ['notes/*', 'tasks/*']);
        both.push(s);
      } else {
        await subscribe(s.id, ['notes/*']);
        notesOnly.push(s);
      }
    }
    const committed: { collection: string; id: string }[] = [];
    // one batch (one commit, its changes fanned out together): notes and tasks alternating
    const batch = sdk.admin.createBatch();
    for (let i = 0; i < 10; i++) batch.collection(i % 2 === 0 ? 'notes' : 'tasks').create({ title: `batch-${i}` });
    const results = (await batch.send()) as { body: { id: string; collectionName: string } }[];
    for (const r of results) committed.push({ collection: r.body.collectionName, id: r.body.id });
    // then single writes in a row, not waiting for their delivery: several reach one round of writes
    const singles = await Promise.all(Array.from({ length: 12 }, (_, i) => sdk.admin.collection(i % 3 === 0 ? 'tasks' : 'notes').create({ title: `single-${i}` })));
    const noteIds = new Set([...committed.filter((c) => c.collection === 'notes').map((c) => c.id), ...singles.filter((r) => r.collectionName === 'notes').map((r) => r.id)]);
    const want = (s: RawStream) => committed.filter((c) => both.includes(s) || c.collection === 'notes').map((c) => c.id);
    await until(() => [...both, ...notesOnly].every((s) => s.events.length >= want(s).length + singles.filter((r) => both.includes(s) || r.collectionName === 'notes').length), 'every event');
    for (const s of [...both, ...notesOnly]) {
      const got = s.events.map((e) => e.record);
      // the batch's events first, in the batch's order
      expect(got.slice(0, want(s).length)).toEqual(want(s));
      // then each single exactly once, and every subscriber of both collections saw them in the same order
      const rest = got.slice(want(s).length);
      expect(new Set(rest).size).toBe(rest.length);
      expect(s.events.every((e) => e.action === 'create')).toBe(true);
    }
    const sequence = both[0].events.map((e) => e.record);
    for (const s of both) expect(s.events.map((e) => e.record)).toEqual(sequence);
    // commit order is one order for all: those on notes alone saw that order's notes
    const notesSequence = sequence.filter((id) => noteIds.has(id));
    for (const s of notesOnly) expect(s.events.map((e) => e.record)).toEqual(notesSequence);
    // gone before the next test: its large records are for two readers, not forty more (which, read by
    // this process while it also serves, could fall behind and be dropped under the total's bound)
    for (const s of [...both, ...notesOnly]) s.socket.destroy();
    await until(() => sdk.server.core.realtime.broker.size === 0, 'the streams to close');
  }, 60_000);

  it('a slow reader holds no one up: the others get every event while it reads nothing, then it gets them all, in order', async () => {
    const slow = await openRaw(sdk.server.port);
    const quick = await openRaw(sdk.server.port);
    streams.push(slow, quick);
    await subscribe(slow.id, ['notes/*']);
    await subscribe(quick.id, ['notes/*']);
    slow.socket.pause();
    const clients = sdk.server.core.realtime.broker.size;
    const body = 'y'.repeat(200 * 1024);
    const ids: string[] = [];
    for (let i = 0; i < 14; i++) ids.push((await sdk.admin.collection('notes').create({ title: `big-${i}`, body }, { fields: 'id' })).id);
    await until(() => quick.events.length >= ids.length, 'the quick reader');
    expect(sdk.server.core.realtime.broker.size).toBe(clients); // nobody dropped
    slow.socket.resume();
    await until(() => slow.events.length >= ids.length, 'the slow reader');
    expect(slow.events.map((e) => e.record)).toEqual(ids);
    expect(quick.events.map((e) => e.record)).toEqual(ids);
  }, 60_000);
});

/** A real socket pair on loopback, its server end driven by an EventStream of a real broker; the reader paused. */
async function streamOnSocketPair(): Promise<{ serverSide: Socket; reader: Socket; out: EventStream; events: () => string[]; order: () => number[] }> {
  const readers: Socket[] = [];
  const serverSide = await new Promise<Socket>((resolve) => {
    const listener = createServer((socket) => {
      listener.close();
      resolve(socket);
    });
    listener.listen(0, '127.0.0.1', () => readers.push(connect((listener.address() as AddressInfo).port, '127.0.0.1')));
  });
  await until(() => readers.length === 1, 'the reader');
  const reader = readers[0];
  reader.pause();
  const received: Buffer[] = [];
  reader.on('data', (chunk: Buffer) => received.push(chunk));
  const set = new StreamSet(new RealtimeBroker(), REALTIME_QUEUE_TOTAL_BYTES, FLUSH_OPTIONS);
  let stream: EventStream | null = null;
  new ReadableStream<Uint8Array>({ start(controller) { stream = new EventStream(set, controller, REALTIME_QUEUE_BYTES); } });
  const out = stream as unknown as EventStream;
  out.useSocket(serverSide);
  // complete events only: what follows the last blank line is an event still arriving (or nothing)
  const events = () => Buffer.concat(received).toString('utf8').split('\n\n').slice(0, -1).filter((e) => e.startsWith('event:'));
  // the `i` of each event's data, in the order they came
  const order = () => events().map((e) => (JSON.parse(e.slice(e.indexOf('data:') + 5)) as { i: number }).i);
  return { serverSide, reader, out, events, order };
}

/**
 * Sends `message(0)`, `message(1)`... on `out`, each once the round that writes the one before is done
 * (so each write is one message, whatever the machine's load: a round late by more than a fixed wait
 * wrote two as one chunk, over the socket's high-water mark), until the socket keeps some of a write
 * (the kernel's buffers full: the reader is paused), at most `most`; answers how many.
 */
async function sendUntilKept(out: EventStream, socket: Socket, message: (i: number) => RealtimeMessage, most: number): Promise<number> {
  let sent = 0;
  while (socket.writableLength === 0 && sent < most) {
    expect(out.send(message(sent++))).toBe(true);
    await until(() => !out.waiting, 'the round that writes it');
  }
  expect(socket.writableLength).toBeGreaterThan(0);
  return sent;
}

/** Sends three more messages after `sent` while the socket keeps its last write: queued, none written. */
async function queueWhileKept(out: EventStream, socket: Socket, message: (i: number) => RealtimeMessage, sent: number): Promise<number> {
  const written = socket.bytesWritten;
  for (let i = 0; i < 3; i++) expect(out.send(message(sent + i))).toBe(true);
  for (let i = 0; i < 10; i++) await turn();
  expect(socket.bytesWritten).toBe(written);
  return written;
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 2));

describe('an event stream whose socket has not taken its last write', () => {
  it('is not written again until the socket drains; then what was queued meanwhile follows by itself, in order', async () => {
    const { serverSide, reader, out, events, order } = await streamOnSocketPair();
    const message = (i: number) => ({ name: 'notes/*', data: JSON.stringify({ i, pad: 'z'.repeat(256 * 1024) }) });
    // messages until the kernel's buffers are full (loopback's grow to tens of MB) and the socket keeps some of a write
    let sent = await sendUntilKept(out, serverSide, message, 400);
    // the stream listens for the socket's drain only while the socket holds some of its write
    expect(serverSide.listenerCount('drain')).toBe(1);
    // more messages: queued, not written while the socket holds its last write
    const written = await queueWhileKept(out, serverSide, message, sent);
    sent += 3;
    // the reader reads again: the socket drains and the queued messages follow by themselves
    reader.resume();
    await until(() => events().length >= sent, 'every message');
    expect(order()).toEqual(Array.from({ length: sent }, (_, i) => i));
    // and only they were written after it: nothing twice
    const queued = [sent - 3, sent - 2, sent - 1].reduce((n, i) => n + Buffer.byteLength(`event:notes/*\ndata:${message(i).data}\n\n`), 0);
    expect(serverSide.bytesWritten - written).toBe(queued);
    // everything taken: no listener left, so a round's writes to sockets that take them cost no 'drain' call
    await until(() => serverSide.writableLength === 0 && serverSide.listenerCount('drain') === 0, 'the socket drained');
    expect(out.send(message(sent++))).toBe(true);
    await until(() => events().length >= sent, 'one more message');
    await until(() => serverSide.writableLength === 0 && serverSide.listenerCount('drain') === 0, 'no listener after the next write');
    reader.destroy();
    serverSide.destroy();
  }, 60_000);

  it('gets what was queued meanwhile once the socket takes a write smaller than its high-water mark (no drain event comes for it)', async () => {
    const { serverSide, reader, out, events, order } = await streamOnSocketPair();
    // writes under the socket's 16 KiB high-water mark each, until the kernel's buffers are full and the
    // socket keeps some of one: node emits 'drain' only after a write it refused, so none comes for this
    const message = (i: number) => ({ name: 'notes/*', data: JSON.stringify({ i, pad: 'z'.repeat(12 * 1024) }) });
    let sent = await sendUntilKept(out, serverSide, message, 5_000);
    expect(serverSide.writableNeedDrain).toBe(false);
    // skipped: the socket still holds its last write
    await queueWhileKept(out, serverSide, message, sent);
    sent += 3;
    // the reader reads again and nothing more is sent: what was queued follows by itself, in order
    reader.resume();
    await until(() => events().length >= sent, 'every message');
    expect(order()).toEqual(Array.from({ length: sent }, (_, i) => i));
    expect(serverSide.listenerCount('drain')).toBe(0); // none awaited, none left behind
    reader.destroy();
    serverSide.destroy();
  }, 60_000);
});

describe('messages to groups and to single streams, interleaved', () => {
  it('each stream gets exactly its messages in the order they were sent, whichever groups carried them', async () => {
    const broker = new RealtimeBroker();
    const set = new StreamSet(broker, REALTIME_QUEUE_TOTAL_BYTES, FLUSH_OPTIONS);
    broker.groupSink = set.groups;
    /** A stream written through its response stream (no socket): what it was written, read back. */
    const open = () => {
      let out: EventStream | null = null;
      const body = new ReadableStream<Uint8Array>({ start(controller) { out = new EventStream(set, controller, REALTIME_QUEUE_BYTES); } }, { highWaterMark: 0 });
      const stream = out as unknown as EventStream;
      const client = broker.connect({ send: (m) => stream.send(m), close: () => stream.close() }, '127.0.0.1');
      set.byClient.set(client, stream);
      const reader = body.getReader();
      let text = '';
      const pump = async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text += Buffer.from(value).toString('utf8');
        }
      };
      void pump();
      return { client, got: () => text.split('\n\n').filter(Boolean).map((e) => /data:(.*)$/s.exec(e)?.[1]) };
    };
    const [one, two, three] = [open(), open(), open()];
    const groupA = [one.client, two.client];
    const groupB = [one.client, three.client];
    const m = (data: string) => ({ name: 'notes/*', data });
    broker.sendGroup(groupA, m('A1'));
    broker.sendGroup(groupB, m('B1'));
    broker.sendGroup(groupA, m('A2'));
    expect(one.client.send(m('I1'))).toBe(true); // a message to one stream between two of its group's
    broker.sendGroup(groupA, m('A3'));
    await until(() => one.got().length === 5 && two.got().length === 3 && three.got().length === 1, 'a round of writes');
    broker.sendGroup(groupB, m('B2')); // after a round: the groups start again
    expect(three.client.send(m('I2'))).toBe(true);
    broker.sendGroup(groupA, m('A4'));
    await until(() => one.got().length === 7 && two.got().length === 4 && three.got().length === 3, 'the next round');
    expect(one.got()).toEqual(['A1', 'B1', 'A2', 'I1', 'A3', 'B2', 'A4']);
    expect(two.got()).toEqual(['A1', 'A2', 'A3', 'A4']);
    expect(three.got()).toEqual(['B1', 'B2', 'I2']);
    broker.closeAll();
  });
});
