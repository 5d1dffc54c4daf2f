// The realtime phase's subscribers, in a process of their own (forked by bench/realtime.ts), so the
// load generator's event loop is not the one reading a thousand event streams: SSE clients that
// connect, subscribe to a topic once PB_CONNECT names them, and count that topic's events. Driven over
// IPC with the same envelope as bench/child.ts: attach, arm (the next event is awaited by all),
// reached (resolves once every subscriber has it), detach.
import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import type { ChildEnvelope, ChildReply, SubscribersRequest } from './protocol.js';

interface Subscriber {
  events: number;
  req: ClientRequest;
}

const subs: Subscriber[] = [];
/** Per subscriber, the count it must pass for the armed event; how many have not yet. */
let targets: number[] = [];
let remaining = 0;
let onReached: (() => void) | null = null;

function counted(sub: Subscriber, index: number): void {
  if (remaining > 0 && sub.events === targets[index] && --remaining === 0) onReached?.();
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

/** One SSE client from `localAddress`: connects, subscribes to `topic`, counts `event:<topic>` lines. */
function subscribe(url: string, topic: string, agent: Agent, localAddress: string): Promise<Subscriber> {
  const mark = Buffer.from(`event:${topic}\n`);
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/realtime`, { agent, localAddress, headers: { accept: 'text/event-stream' } }, (res: IncomingMessage) => {
      const sub: Subscriber = { events: 0, req };
      let head = '';
      let index = -1;
      let tail = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        if (index < 0) {
          head += chunk.toString();
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
          if (index < subs.length) counted(sub, index);
          at = bytes.indexOf(mark, at + mark.byteLength);
        }
        tail = Buffer.from(bytes.subarray(Math.max(0, bytes.byteLength - mark.byteLength + 1)));
      });
    });
    req.on('error', reject);
    req.end();
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
      for (const s of subs) s.req.destroy();
      subs.length = 0;
      remaining = 0;
      return null;
    case 'cpu':
      return process.cpuUsage();
    case 'close':
      for (const s of subs) s.req.destroy();
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
