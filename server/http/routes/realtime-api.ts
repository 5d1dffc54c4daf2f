// Realtime as PocketBase serves it (apis/realtime.go): GET opens a server-sent event stream that starts
// with PB_CONNECT {clientId}; POST {clientId, subscriptions} with the caller's Authorization binds who
// the client is and what it listens to. Each message is `event:<subscription>` and `data:<json>`; the
// stream's id, `id:<clientId>`, comes once with PB_CONNECT (PocketBase repeats it on every message: an
// event stream's last event id holds until another `id:` line, so EventSource, and the SDK through it,
// gives every event the same `lastEventId` either way). What a client is sent, and when, is the core's
// (core/realtime/); the bytes, shared between streams, are realtime-frames.ts's.
import type { Socket } from 'node:net';
import type { H3 } from 'h3';
import { HTTPResponse } from 'h3';
import type { Core } from '../../core/index.js';
import type { RealtimeSink } from '../../core/realtime/broker.js';
import { COLLECTION_BODY_BYTES, readBodyObject } from '../body.js';
import { authOf } from '../caller.js';
import { clientOf } from '../request.js';
import { noContent } from '../respond.js';
import { FLUSH_OPTIONS, RealtimeFlusher, type Flushable, type FlushOptions } from './realtime-flush.js';
import { FrameTree, frameOf } from './realtime-frames.js';

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

export function registerRealtime(app: H3, core: Core, totalQueueBytes = REALTIME_QUEUE_TOTAL_BYTES, flush: Readonly<FlushOptions> = FLUSH_OPTIONS): void {
  const { broker } = core.realtime;
  /** Bytes waiting in all streams, as each stream last saw its own queue (on each message, write and drain). */
  let queuedTotal = 0;
  const tree = new FrameTree();
  const flusher = new RealtimeFlusher(flush, () => tree.restart());

  app.get('/api/realtime', (event) => {
    const res = event.runtime?.node?.res;
    const socket = event.runtime?.node?.req.socket;
    // between events the stream is quiet by design: the broker's idle timer (5 minutes) ends it, not
    // the server's socket inactivity timeout
    socket?.setTimeout(0);
    // no `Transfer-Encoding: chunked`: node then frames each write with a size line and CRLF, two
    // more buffers per socket write to every subscriber
    res?.removeHeader('transfer-encoding');
    let clientId = '';
    const address = clientOf(event); // the stream's address bears what its subscriptions cost
    /**
     * Where the stream's bytes go. The head and PB_CONNECT go through the response as h3 sends it;
     * once they are on the socket (the response's first read after them, `pull` below), every later
     * write goes to the socket itself: the body is close-delimited, so its bytes are the events' bytes
     * alone, and a write is one `socket.write` of a Buffer other streams share (realtime-frames.ts).
     */
    let direct: Socket | null = null;
    /** What is queued and not yet written: a run of shared frames. */
    let run = tree.root;
    /** Bytes waiting: queued (`run.bytes`) and written but not yet taken by the socket, as last seen. */
    let queued = 0;
    /** When the socket last took everything written to it, or the queue was last found empty. */
    let taken = performance.now();
    let control: ReadableStreamDefaultController<Uint8Array> | null = null;
    /** Bytes written and not yet taken: the socket's own buffer, or the response stream's queue. */
    const unsent = () => (direct !== null ? direct.writableLength : control === null ? 0 : Math.max(0, -(control.desiredSize ?? 0)));
    /** This stream's queue as it is now, into the total. */
    const sync = (closing = false) => {
      const now = closing ? 0 : unsent() + run.bytes;
      queuedTotal += now - queued;
      queued = now;
      if (now === 0) taken = performance.now();
    };
    const behind = () => queued > BEHIND_BYTES || (queued > 0 && performance.now() - taken > BEHIND_MS);
    let closed = false;
    const write = (chunk: Buffer) => {
      if (direct !== null) {
        if (!direct.destroyed) direct.write(chunk);
      } else control?.enqueue(chunk);
    };
    /** Queued messages, written as one chunk (the flusher's round; realtime-flush.ts). */
    const out: Flushable = {
      waiting: false,
      flush() {
        if (closed || control === null || run.empty) return;
        // a socket that has not taken the last write is skipped: its messages wait (and join the next
        // write), and its drain brings it back (below); the queue's bound still holds for it
        if (direct !== null && direct.writableLength > 0) return;
        write(run.chunk());
        run = tree.root;
        sync();
      },
    };
    const onDrain = () => {
      taken = performance.now();
      sync();
      if (!run.empty) flusher.mark(out);
    };
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        control = controller;
        const sink: RealtimeSink = {
          send(message) {
            if (closed) return true;
            const bytes = frameOf(message);
            const size = bytes.byteLength;
            if (unsent() + run.bytes + size > REALTIME_QUEUE_BYTES || (queuedTotal + size > totalQueueBytes && behind())) {
              closed = true;
              run = tree.root;
              sync(true);
              controller.error(new Error('realtime client queue full'));
              return false;
            }
            run = run.then(bytes);
            queued += size;
            queuedTotal += size;
            flusher.mark(out);
            return true;
          },
          close() {
            if (closed) return;
            // what was queued before the end goes out before it (a socket behind takes it after the rest)
            if (!run.empty) write(run.chunk());
            run = tree.root;
            closed = true;
            sync(true);
            direct?.off('drain', onDrain);
            controller.close();
          },
        };
        const client = broker.connect(sink, address);
        clientId = client.id;
        // the client id once, on PB_CONNECT: an event stream's last event id holds for the events after
        // it (what EventSource gives each event as `lastEventId`, and all the SDK reads of it)
        controller.enqueue(Buffer.from(`id:${clientId}\nevent:PB_CONNECT\ndata:${JSON.stringify({ clientId })}\n\n`));
      },
      // with no high-water mark, called only when the response asks for more: the first time is right
      // after it wrote PB_CONNECT (and the head) to the socket, so the socket is ours from here on
      pull() {
        if (direct === null && !closed && socket !== undefined && res?.socket === socket && res.headersSent) {
          direct = socket;
          direct.on('drain', onDrain);
        }
        taken = performance.now();
        sync();
      },
      cancel() {
        closed = true;
        run = tree.root;
        sync(true);
        direct?.off('drain', onDrain);
        broker.disconnect(clientId);
      },
    }, { highWaterMark: 0, size: (chunk) => chunk.byteLength });
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
