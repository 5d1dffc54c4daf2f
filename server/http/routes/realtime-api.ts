// Realtime as PocketBase serves it (apis/realtime.go): GET opens a server-sent event stream that starts
// with PB_CONNECT {clientId}; POST {clientId, subscriptions} with the caller's Authorization binds who
// the client is and what it listens to. Each message is `id:<clientId>`, `event:<subscription>`,
// `data:<json>`. What a client is sent, and when, is the core's (core/realtime/).
import type { H3 } from 'h3';
import { HTTPResponse } from 'h3';
import type { Core } from '../../core/index.js';
import type { RealtimeMessage, RealtimeSink } from '../../core/realtime/broker.js';
import { COLLECTION_BODY_BYTES, readBodyObject } from '../body.js';
import { authOf } from '../caller.js';
import { clientOf } from '../request.js';
import { noContent } from '../respond.js';
import { FLUSH_OPTIONS, RealtimeFlusher, type Flushable, type FlushOptions } from './realtime-flush.js';

/**
 * Bytes a client may have waiting (sent, not yet taken by its socket). Past it the stream is ended,
 * its queue dropped: a reader that stopped reading cannot grow the server's memory. The SDK reconnects
 * and resubscribes, as after any dropped connection (PocketBase leaves such a client's goroutines
 * waiting instead).
 */
export const REALTIME_QUEUE_BYTES = 4 * 1024 * 1024;

/**
 * Bytes all clients together may have waiting. Past it, a client that is behind (more than 256 KiB
 * waiting, or anything waiting and nothing taken for a second) is dropped as a full one is, at its
 * next message: slow or stopped readers on many connections cannot hold 4 MiB each, while a client
 * that keeps up is not dropped for the others.
 */
export const REALTIME_QUEUE_TOTAL_BYTES = 32 * 1024 * 1024;
const BEHIND_BYTES = 256 * 1024;
const BEHIND_MS = 1000;

const HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream; charset=UTF-8',
  'cache-control': 'no-store',
  // nginx and similar proxies would otherwise buffer the stream
  'x-accel-buffering': 'no',
  // the body ends with the connection (an event stream is never reused for another request), so it
  // needs no chunked framing: each write is the events' bytes alone (see the GET below)
  connection: 'close',
};

/** A message's `event:` and `data:` lines, encoded once for all the clients it goes to. */
const frames = new WeakMap<RealtimeMessage, Buffer>();
/** The last message encoded: a fan-out hands one message to its clients one after another. */
let last: { message: RealtimeMessage | null; bytes: Buffer } = { message: null, bytes: Buffer.alloc(0) };
function frame(message: RealtimeMessage): Buffer {
  if (last.message === message) return last.bytes;
  let bytes = frames.get(message);
  if (!bytes) frames.set(message, (bytes = Buffer.from(`event:${message.name}\ndata:${message.data}\n\n`)));
  last = { message, bytes };
  return bytes;
}

export function registerRealtime(app: H3, core: Core, totalQueueBytes = REALTIME_QUEUE_TOTAL_BYTES, flush: Readonly<FlushOptions> = FLUSH_OPTIONS): void {
  const { broker } = core.realtime;
  /** Bytes waiting in all streams, as each stream last saw its own queue (on each message and each read). */
  let queuedTotal = 0;
  const flusher = new RealtimeFlusher(flush);

  app.get('/api/realtime', (event) => {
    // between events the stream is quiet by design: the broker's idle timer (5 minutes) ends it, not
    // the server's socket inactivity timeout
    event.runtime?.node?.req.socket.setTimeout(0);
    // no `Transfer-Encoding: chunked`: node then frames each write with a size line and CRLF, two
    // more buffers per socket write to every subscriber
    event.runtime?.node?.res?.removeHeader('transfer-encoding');
    let clientId = '';
    const address = clientOf(event); // the stream's address bears what its subscriptions cost
    let prefix = Buffer.alloc(0);
    /** Bytes waiting: in the stream's queue (`inStream`, as last seen) and not yet written to it (`pending`). */
    let queued = 0;
    let inStream = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    /** When the socket last took a chunk, or the queue was last found empty. */
    let taken = performance.now();
    let control: ReadableStreamDefaultController<Uint8Array> | null = null;
    /** This stream's queue as it is now, into the total. */
    const sync = (closing = false) => {
      inStream = closing || control === null ? 0 : REALTIME_QUEUE_BYTES - (control.desiredSize ?? REALTIME_QUEUE_BYTES);
      const now = closing ? 0 : inStream + pendingBytes;
      queuedTotal += now - queued;
      queued = now;
      if (now === 0) taken = performance.now();
    };
    const behind = () => queued > BEHIND_BYTES || (queued > 0 && performance.now() - taken > BEHIND_MS);
    let closed = false;
    /** Queued messages, written to the stream as one chunk (the flusher's round; realtime-flush.ts). */
    const out: Flushable = {
      waiting: false,
      flush() {
        if (closed || control === null || pending.length === 0) return;
        const chunk = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        control.enqueue(chunk);
        sync();
      },
    };
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        control = controller;
        const sink: RealtimeSink = {
          send(message) {
            if (closed) return true;
            const bytes = frame(message);
            const size = prefix.byteLength + bytes.byteLength;
            if (inStream + pendingBytes + size > REALTIME_QUEUE_BYTES || (queuedTotal + size > totalQueueBytes && behind())) {
              closed = true;
              pending = [];
              pendingBytes = 0;
              sync(true);
              controller.error(new Error('realtime client queue full'));
              return false;
            }
            pending.push(prefix, bytes);
            pendingBytes += size;
            queued += size;
            queuedTotal += size;
            flusher.mark(out);
            return true;
          },
          close() {
            if (closed) return;
            out.flush(); // what was queued before the end goes out before it
            closed = true;
            sync(true);
            controller.close();
          },
        };
        const client = broker.connect(sink, address);
        clientId = client.id;
        prefix = Buffer.from(`id:${clientId}\n`);
        client.send({ name: 'PB_CONNECT', data: JSON.stringify({ clientId }) });
      },
      // called as the socket takes chunks: the total follows what is still waiting
      pull() {
        taken = performance.now();
        sync();
      },
      cancel() {
        closed = true;
        pending = [];
        pendingBytes = 0;
        sync(true);
        broker.disconnect(clientId);
      },
    }, { highWaterMark: REALTIME_QUEUE_BYTES, size: (chunk) => chunk.byteLength });
    return new HTTPResponse(stream, { status: 200, headers: HEADERS });
  });

  app.post('/api/realtime', async (event) => {
    // 1,000 subscriptions of 2,500 characters fit; what a client, its address and the server may hold
    // is core's (core/realtime/subscription-limits.ts: a 400 or a 429 naming the limit)
    const body = await readBodyObject(event, COLLECTION_BODY_BYTES);
    core.realtime.subscribe(body, authOf(event));
    return noContent();
  });
}
