// The realtime phase's subscribers, in a process of their own (forked by bench/realtime.ts), so the
// load generator's event loop is not the one reading a thousand event streams: SSE clients that
// connect, subscribe to a topic once PB_CONNECT names them, and count that topic's events. Driven over
// IPC with the same envelope as bench/child.ts: attach, arm (the next event is awaited by all),
// reached (resolves once every subscriber has it), detach; track/tracked: while creates run at full
// rate, each event's time from its record's `created` (the server's clock, this machine's) to the last
// subscriber holding it.
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { ChildEnvelope, ChildReply, SubscribersRequest } from './protocol.js';

interface Subscriber {
  events: number;
  socket: Socket;
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
 * an event is known by its place in each one's count. Per place: how many have it, when the latest
 * got it, and its record's `created` (read once, from the first subscriber to get it).
 */
let tracking = false;
let got: number[] = [];
let lastAt: number[] = [];
let createdAt: number[] = [];

function tracked(sub: Subscriber, bytes: Buffer, at: number): void {
  const k = sub.events;
  got[k] = (got[k] ?? 0) + 1;
  lastAt[k] = Date.now();
  // this event's own data line (not the next one's): up to the blank line that ends it
  if (!(createdAt[k] > 0)) {
    const end = bytes.indexOf('\n\n', at);
    const m = /"created":"([^"]+)"/.exec(bytes.toString('latin1', at, end < 0 ? at : end));
    if (m) createdAt[k] = Date.parse(m[1].replace(' ', 'T'));
  }
}

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
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    const sub: Subscriber = { events: 0, socket };
    let head = '';
    let index = -1;
    let tail = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('connect', () => socket.write(`GET /api/realtime HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      if (index < 0) {
        head += chunk.toString('latin1');
        const m = /id:(\w+)\nevent:PB_CONNECT\n[^\n]*\n\n/.exec(head);
        if (!m) return;
        index = Number.MAX_SAFE_INTEGER; // connected: events counted from here on
        // from the stream's own address: the server counts connections per address
        post(`${url}/api/realtime`, JSON.stringify({ clientId: m[1], subscriptions: [topic] }), agent, localAddress)
          .then((status) => {
            if (status !== 204) return reject(new Error(`subscribe: ${status}`));
            index = subs.push(sub) - 1;
            resolve(sub);
          }, reject);
        return;
      }
      // count markers, one split across two chunks included
      const bytes = tail.byteLength > 0 ? Buffer.concat([tail, chunk]) : chunk;
      let at = bytes.indexOf(mark);
      while (at >= 0) {
        sub.events++;
        if (tracking) tracked(sub, bytes, at);
        if (index < subs.length) counted(sub, index);
        at = bytes.indexOf(mark, at + mark.byteLength);
      }
      tail = Buffer.from(bytes.subarray(Math.max(0, bytes.byteLength - mark.byteLength + 1)));
    });
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
    case 'track':
      tracking = true;
      got = [];
      lastAt = [];
      createdAt = [];
      return null;
    case 'tracked': {
      tracking = false;
      const times: number[] = [];
      let incomplete = 0;
      for (let k = 0; k < got.length; k++) {
        if (got[k] === undefined) continue;
        if (got[k] < subs.length || !(createdAt[k] > 0)) incomplete++;
        else times.push(lastAt[k] - createdAt[k]);
      }
      return { times: times.sort((a, b) => a - b), incomplete };
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
