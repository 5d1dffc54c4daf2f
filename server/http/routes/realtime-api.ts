// Realtime as PocketBase serves it (apis/realtime.go): GET opens a server-sent event stream that starts
// with PB_CONNECT {clientId}; POST {clientId, subscriptions} with the caller's Authorization binds who
// the client is and what it listens to. Each message is `event:<subscription>` and `data:<json>`; the
// stream's id, `id:<clientId>`, comes once with PB_CONNECT (PocketBase repeats it on every message: an
// event stream's last event id holds until another `id:` line, so EventSource, and the SDK through it,
// gives every event the same `lastEventId` either way). What a client is sent, and when, is the core's
// (core/realtime/); the bytes, shared between streams, are realtime-frames.ts's.
import type { H3 } from 'h3';
import { HTTPResponse } from 'h3';
import type { Core } from '../../core/index.js';
import type { RealtimeSink } from '../../core/realtime/broker.js';
import { COLLECTION_BODY_BYTES, readBodyObject } from '../body.js';
import { authOf } from '../caller.js';
import { clientOf } from '../request.js';
import { noContent } from '../respond.js';
import { FLUSH_OPTIONS, type FlushOptions } from './realtime-flush.js';
import { EventStream, REALTIME_QUEUE_BYTES, REALTIME_QUEUE_TOTAL_BYTES, StreamSet } from './realtime-streams.js';

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
  const streams = new StreamSet(broker, totalQueueBytes, flush);
  broker.groupSink = streams.groups;

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
    let out: EventStream | null = null;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const mine = (out = new EventStream(streams, controller, REALTIME_QUEUE_BYTES));
        const sink: RealtimeSink = { send: (message) => mine.send(message), close: () => mine.close(), sentAt: () => mine.sentAt };
        const client = broker.connect(sink, address);
        streams.byClient.set(client, mine);
        clientId = client.id;
        // the client id once, on PB_CONNECT: an event stream's last event id holds for the events after
        // it (what EventSource gives each event as `lastEventId`, and all the SDK reads of it)
        controller.enqueue(Buffer.from(`id:${clientId}\nevent:PB_CONNECT\ndata:${JSON.stringify({ clientId })}\n\n`));
      },
      // with no high-water mark, called only when the response asks for more: the first time is right
      // after it wrote PB_CONNECT (and the head) to the socket, so the socket is the stream's from here on
      pull() {
        if (socket !== undefined && res?.socket === socket && res.headersSent) out?.useSocket(socket);
        out?.pulled();
      },
      cancel() {
        out?.cancelled();
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
