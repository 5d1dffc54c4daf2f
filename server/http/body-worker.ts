// Parsing large request bodies off the event loop. Once its shape is bounded (body-shape.ts), a body's
// parse still costs time in proportion to its bytes (docs/architecture.md, "Measurements behind the
// code"), and the loop would serve nothing else meanwhile. JSON and urlencoded bodies over
// INLINE_BYTES are parsed on one worker thread of server/worker-pool.ts instead; what comes back (a
// value or form entries of bounded count) is cheap to copy in. Multipart bodies never come here:
// busboy parses them as they arrive, a chunk at a time (multipart.ts).
import { WorkerPool } from '../worker-pool.js';

/** Bodies up to this size are parsed on the event loop: a worker round trip costs more than the parse. */
export const INLINE_BYTES = 64 * 1024;

export type BodyKind = 'json' | 'urlencoded';
export type Parsed = { value: unknown } | { entries: [string, string][] };

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ kind, bytes }) => {
  try {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    if (kind === 'urlencoded') parentPort.postMessage({ entries: [...new URLSearchParams(text)] });
    else parentPort.postMessage({ value: text.trim() === '' ? undefined : JSON.parse(text) });
  } catch {
    parentPort.postMessage({ failed: true });
  }
});
`;

/**
 * One worker, one body at a time: large bodies are rare, and each parse is already off the loop. The
 * queue is bounded by the bodies in flight (bodies-in-flight.ts): only bodies inside it are parsed.
 * Each app has its own (createApp).
 */
export class BodyParser {
  private readonly pool = new WorkerPool<{ kind: BodyKind; bytes: Uint8Array }, Parsed | { failed: true }>({ name: 'body parser', source: WORKER_SOURCE, size: 1 });

  /** Parses a body on the worker; rejects with a SyntaxError when it does not parse. */
  async parseOffThread(kind: BodyKind, bytes: Uint8Array): Promise<Parsed> {
    // the bytes move to the worker without a copy when they fill their own memory (body.ts copies a
    // large body into a fresh buffer); otherwise they are copied
    const transfer = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : [];
    const reply = await this.pool.run({ kind, bytes }, '', transfer);
    if ('failed' in reply) throw new SyntaxError('unparsable body');
    return reply;
  }

  /** Parses a body whose shape is already bounded: small ones on the loop, large ones on the worker. */
  async parse(kind: BodyKind, bytes: Uint8Array): Promise<Parsed> {
    if (bytes.length > INLINE_BYTES) return this.parseOffThread(kind, bytes);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    if (kind === 'urlencoded') return { entries: [...new URLSearchParams(text)] };
    return { value: text.trim() === '' ? undefined : JSON.parse(text) };
  }
}
