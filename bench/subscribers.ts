// The realtime phase's subscribers, in a process of their own (forked by bench/realtime.ts), so the
// load generator's event loop is not the one reading a thousand event streams: SSE clients that
// connect, subscribe to a topic once PB_CONNECT names them, and count that topic's events. Driven over
// IPC with the same envelope as bench/child.ts: attach, arm (the next event is awaited by all),
// reached (resolves once every subscriber has it), detach; track/tracked: while creates run at full
// rate, each event's time from its record's `created` (the server's clock, this machine's) to the last
// subscriber holding it.
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { LoopWatch } from './loop-watch.js';
import type { ChildEnvelope, ChildReply, SubscribersRequest } from './protocol.js';

interface Subscriber {
  events: number;
  socket: Socket;
  /** How many of the marker's first bytes ended the last read (a marker split across two reads). */
  partial: number;
}

const subs: Subscriber[] = [];
/** Per subscriber, the count it must pass for the armed event; how many have not yet. */
let targets: number[] = [];
let remaining = 0;
let onReached: (() => void) | null = null;

function counted(sub: Subscriber, index: number): void {
  if (remaining > 0 && sub.events === targets[index] && --remaining === 0) onReached?.();
}

/**
 * Tracking (op `track`): the subscribers attached together get the same events in the same order, so
 * an event is known by its place in each one's count. Per place: how many have it, when the first and
 * the latest read it, and its record's `created` (read once, from the first subscriber whose read holds
 * the whole data line).
 */
let tracking = false;
let got: number[] = [];
let firstAt: number[] = [];
let lastAt: number[] = [];
let createdAt: number[] = [];
const CREATED = Buffer.from('"created":"');

function tracked(sub: Subscriber, bytes: Buffer, at: number, end: number, now: number): void {
  const k = sub.events;
  const n = (got[k] ?? 0) + 1;
  got[k] = n;
  if (n === 1) firstAt[k] = now;
  lastAt[k] = now;
  if (createdAt[k] > 0) return;
  // this event's own data line (not the next one's): its `created`, when this read holds it whole
  const c = bytes.indexOf(CREATED, at);
  if (c < 0 || c >= end) return;
  const from = c + CREATED.byteLength;
  const to = bytes.indexOf(0x22, from);
  if (to < 0 || to >= end) return;
  createdAt[k] = Date.parse(bytes.toString('latin1', from, to).replace(' ', 'T'));
}

/** Loop figures of this process over a window (op loopStart / loopStop). */
const loop = new LoopWatch();

function post(url: string, body: string, agent: Agent, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Every stream's reads land in this one buffer (net's `onread`: no Buffer, no stream machinery per
 * read): each read is counted before the next one starts, so the streams can share it.
 */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

/**
 * The events in one read of a subscriber's stream: every `event:<topic>` marker, one split across two
 * reads included. Every byte the server sent is read (a reader that stops reading would be dropped at
 * the server's bounds); the only string work is the tracked `created`, once per event.
 */
/** Reads of all streams since `track`: the server's socket writes at most (one a round per stream; a late reader takes several in one read). */
let reads = 0;
/** Bytes read and events counted by all streams since `track`: an event's frame size, for the floor (bench/realtime-floor.ts). */
let bytesRead = 0;
let eventsSeen = 0;

/**
 * The last read searched whole (no marker split into it): its bytes, its markers' offsets and the
 * marker bytes left at its end. In a round the server writes one shared chunk to every stream, so most
 * streams' reads are those same bytes: they are compared with it (one memcmp) and its offsets used,
 * not searched again marker by marker. Every read is still taken and every event in it counted.
 */
let known: Buffer = Buffer.alloc(0);
let knownAt: number[] = [];
let knownPartial = 0;

function events(sub: Subscriber, index: number, mark: Buffer, bytes: Buffer): void {
  const length = bytes.byteLength;
  reads++;
  const now = tracking ? Date.now() : 0;
  if (tracking) bytesRead += length;
  if (sub.partial === 0 && length === known.byteLength && bytes.equals(known)) {
    for (let i = 0; i < knownAt.length; i++) one(sub, index, bytes, knownAt[i], i + 1 < knownAt.length ? knownAt[i + 1] : length, now);
    sub.partial = knownPartial;
    return;
  }
  const whole = sub.partial === 0;
  const offsets: number[] = [];
  let at: number;
  if (sub.partial > 0) {
    // the marker's rest at the start of this read
    const rest = mark.byteLength - sub.partial;
    const joined = length >= rest && bytes.compare(mark, sub.partial, mark.byteLength, 0, rest) === 0;
    sub.partial = 0;
    if (joined) {
      const next = bytes.indexOf(mark, rest);
      one(sub, index, bytes, 0, next < 0 ? length : next, now);
      at = next;
    } else at = bytes.indexOf(mark);
  } else at = bytes.indexOf(mark);
  while (at >= 0) {
    const next = bytes.indexOf(mark, at + mark.byteLength);
    offsets.push(at);
    one(sub, index, bytes, at, next < 0 ? length : next, now);
    at = next;
  }
  // a marker's first bytes at the end of the read: its rest comes with the next (a marker's only
  // newline is its last byte, so a read ending in one holds no such start)
  if (length > 0 && bytes[length - 1] !== 0x0a) {
    for (let k = Math.min(mark.byteLength - 1, length); k > 0; k--) {
      if (bytes.compare(mark, 0, k, length - k, length) === 0) {
        sub.partial = k;
        break;
      }
    }
  }
  if (whole) {
    known = Buffer.from(bytes);
    knownAt = offsets;
    knownPartial = sub.partial;
  }
}

function one(sub: Subscriber, index: number, bytes: Buffer, at: number, end: number, now: number): void {
  if (tracking) {
    tracked(sub, bytes, at, end, now);
    eventsSeen++;
  }
  sub.events++;
  if (index < subs.length) counted(sub, index);
}

/**
 * One SSE client from `localAddress`: connects, subscribes to `topic`, counts `event:<topic>` lines.
 * A plain TCP socket with the request written by hand, not node:http's client: the stream's body is
 * close-delimited (the server sends no chunked framing), so its bytes are read as they come, without an
 * HTTP parser per chunk; reading a thousand streams then costs this process less of the cores it
 * shares with the server (the CPU it takes is reported beside the figures, bench/realtime.ts).
 */
function subscribe(url: string, topic: string, agent: Agent, localAddress: string): Promise<Subscriber> {
  const mark = Buffer.from(`event:${topic}\n`);
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let head = '';
    let index = -1;
    const sub: Subscriber = {
      events: 0,
      partial: 0,
      socket: connect({
        host: hostname, port: Number(port), localAddress,
        onread: {
          buffer: READ_BUFFER,
          callback: (length: number, bytes: Uint8Array): boolean => {
            const buf = (bytes as Buffer).subarray(0, length);
            if (index >= 0) {
              events(sub, index, mark, buf);
              return true;
            }
            head += buf.toString('latin1');
            const m = /id:(\w+)\nevent:PB_CONNECT\n[^\n]*\n\n/.exec(head);
            if (!m) return true;
            head = '';
            index = Number.MAX_SAFE_INTEGER; // connected: events counted from here on
            // from the stream's own address: the server counts connections per address
            post(`${url}/api/realtime`, JSON.stringify({ clientId: m[1], subscriptions: [topic] }), agent, localAddress)
              .then((status) => {
                if (status !== 204) return reject(new Error(`subscribe: ${status}`));
                index = subs.push(sub) - 1;
                resolve(sub);
              }, reject);
            return true;
          },
        },
      }),
    };
    sub.socket.on('error', reject);
    sub.socket.on('connect', () => sub.socket.write(`GET /api/realtime HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`));
  });
}

const agent = new Agent({ keepAlive: false, maxSockets: Infinity });

async function handle(r: SubscribersRequest): Promise<unknown> {
  switch (r.op) {
    case 'attach': {
      for (let i = 0; i < r.count; i += 100) {
        await Promise.all(Array.from({ length: Math.min(100, r.count - i) }, (_, j) => subscribe(r.url, r.topic, agent, r.addresses[(i + j) % r.addresses.length])));
      }
      return subs.length;
    }
    case 'arm':
      targets = subs.map((s) => s.events + 1);
      remaining = subs.length;
      return null;
    case 'reached':
      if (remaining === 0) return null;
      return new Promise<null>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${remaining} of ${subs.length} subscribers did not get the event in ${r.timeoutMs} ms`)), r.timeoutMs);
        onReached = () => {
          clearTimeout(timer);
          onReached = null;
          resolve(null);
        };
      });
    case 'detach':
      for (const s of subs) s.socket.destroy();
      subs.length = 0;
      remaining = 0;
      return null;
    case 'cpu':
      return process.cpuUsage();
    case 'loopStart':
      return loop.start();
    case 'loopStop':
      return loop.stop();
    case 'track':
      tracking = true;
      reads = 0;
      bytesRead = eventsSeen = 0;
      got = [];
      firstAt = [];
      lastAt = [];
      createdAt = [];
      return null;
    case 'tracked': {
      tracking = false;
      const times: number[] = [];
      const first: number[] = [];
      let incomplete = 0;
      for (let k = 0; k < got.length; k++) {
        if (got[k] === undefined) continue;
        if (got[k] < subs.length || !(createdAt[k] > 0)) incomplete++;
        else {
          times.push(lastAt[k] - createdAt[k]);
          first.push(firstAt[k] - createdAt[k]);
        }
      }
      const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
      return { times: sorted(times), first: sorted(first), incomplete, reads, eventBytes: bytesRead / Math.max(1, eventsSeen) };
    }
    case 'close':
      for (const s of subs) s.socket.destroy();
      return null;
  }
}

process.on('message', (message: ChildEnvelope) => {
  handle(message.request as SubscribersRequest).then(
    (result) => process.send?.({ id: message.id, ok: true, result } satisfies ChildReply),
    (err: unknown) => process.send?.({ id: message.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies ChildReply),
  );
});
process.on('disconnect', () => process.exit(0));
