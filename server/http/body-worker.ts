// Parsing large request bodies off the event loop. Once its shape is bounded (body-shape.ts), a body's
// parse still costs time in proportion to its bytes (docs/architecture.md, "Measurements behind the
// code"), and the loop would serve nothing else meanwhile. Bodies over INLINE_BYTES are parsed on one worker thread instead; what comes back
// (a value or form entries of bounded count) is cheap to copy in.
//
// Like scrypt-pool.ts: the source is inline (eval) so that bundles need no extra file, the worker starts
// on first use, exits when idle and never keeps the process alive.
import { Worker } from 'node:worker_threads';

/** Bodies up to this size are parsed on the event loop: a worker round trip costs more than the parse. */
export const INLINE_BYTES = 64 * 1024;

export type BodyKind = 'json' | 'urlencoded' | 'multipart';
export type Parsed = { value: unknown } | { entries: [string, string][] };

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', async ({ kind, bytes, type }) => {
  try {
    if (kind === 'multipart') {
      const form = await new Response(bytes, { headers: { 'content-type': type } }).formData();
      const entries = [];
      for (const [k, v] of form) if (typeof v === 'string') entries.push([k, v]);
      parentPort.postMessage({ entries });
      return;
    }
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    if (kind === 'urlencoded') parentPort.postMessage({ entries: [...new URLSearchParams(text)] });
    else parentPort.postMessage({ value: text.trim() === '' ? undefined : JSON.parse(text) });
  } catch {
    parentPort.postMessage({ failed: true });
  }
});
`;

interface Job {
  message: { kind: BodyKind; bytes: Uint8Array; type: string };
  resolve: (parsed: Parsed) => void;
  reject: (error: Error) => void;
}

type Reply = Parsed | { failed: true };

/** One worker, one body at a time: large bodies are rare, and each parse is already off the loop. */
class BodyParser {
  private worker: Worker | null = null;
  private current: Job | null = null;
  private queue: Job[] = [];
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly idleMs = 30_000) {}

  parse(kind: BodyKind, bytes: Uint8Array, type: string): Promise<Parsed> {
    return new Promise((resolve, reject) => {
      this.queue.push({ message: { kind, bytes, type }, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.current !== null) return;
    const job = this.queue.shift();
    if (job === undefined) return this.armIdleTimer();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.current = job;
    const { bytes } = job.message;
    // the bytes move to the worker without a copy when they fill their own memory (body.ts copies a
    // large body into a fresh buffer); otherwise they are copied
    const transfer = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : [];
    (this.worker ??= this.spawn()).postMessage(job.message, transfer);
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const job = this.current;
      this.current = null;
      if (job) {
        if ('failed' in reply) job.reject(new SyntaxError('unparsable body'));
        else job.resolve(reply);
      }
      this.next();
    });
    const lost = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const job = this.current;
      this.current = null;
      job?.reject(error);
      this.next();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`body parser worker exited (code ${code})`)));
    return worker;
  }

  private armIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.current !== null || this.worker === null) return;
      const worker = this.worker;
      this.worker = null;
      void worker.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}

/** One per process, as the scrypt pool: it holds no application state. */
const parser = new BodyParser();

/** Parses a body on the worker; rejects with a SyntaxError when it does not parse. */
export function parseOffThread(kind: BodyKind, bytes: Uint8Array, type: string): Promise<Parsed> {
  return parser.parse(kind, bytes, type);
}
