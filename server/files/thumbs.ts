// Thumbnails (`?thumb=WxH` and its crop and fit variants) with sharp: decoded and resized on libuv's
// thread pool, never on the event loop. Each is generated once, on first request (concurrent first
// requests share one generation), written to a temporary name and renamed into place, so a reader
// never sees half a thumbnail; a few generations run at a time (as PocketBase's semaphore). One that
// fails is not tried again for RETRY_FAILED_MS (the original is served meanwhile, as on a failure): an
// image that cannot be decoded (cut short, say) may cost seconds of CPU and hundreds of MiB before it
// fails, and PocketBase's way, trying again on every request, let a client repeat that at will.
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import type { ResizeOptions } from 'sharp';

/** Image types thumbnails are made of (PocketBase's imageContentTypes). */
export const THUMBABLE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** Larger images are not decoded (decompression bombs): 100 megapixels. */
const MAX_PIXELS = 100_000_000;
const CONCURRENCY = 2;
/** How long a thumbnail whose generation failed is not tried again. */
const RETRY_FAILED_MS = 10 * 60_000;
/** Failed generations remembered at most (the oldest forgotten first). */
const MAX_FAILED = 10_000;

const FORMATS: Record<string, 'png' | 'jpeg' | 'gif' | 'webp'> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

function transform(size: string): ResizeOptions | null {
  const m = /^(\d+)x(\d+)([tbf]?)$/.exec(size);
  if (!m) return null;
  const width = Number(m[1]);
  const height = Number(m[2]);
  if (width === 0 && height === 0) return null;
  if (width === 0) return { height };
  if (height === 0) return { width };
  if (m[3] === 'f') return { width, height, fit: 'inside', withoutEnlargement: true };
  const position = m[3] === 't' ? 'top' : m[3] === 'b' ? 'bottom' : 'centre';
  return { width, height, fit: 'cover', position };
}

function plan(size: string, mime: string): { options: ResizeOptions; format: 'png' | 'jpeg' | 'gif' | 'webp' } {
  const options = transform(size);
  const format = FORMATS[mime];
  if (options === null || format === undefined) throw new Error(`cannot make a ${size} thumbnail of ${mime}`);
  return { options, format };
}

export class Thumbnails {
  private readonly inFlight = new Map<string, Promise<void>>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** When each recent failed generation failed (performance.now()), by its key. */
  private readonly failed = new Map<string, number>();
  /** Generations done (tests count them). */
  generated = 0;
  /** Generations begun, made or failed (tests count them). */
  tried = 0;

  /** Makes `target` from `source` unless it exists; rejects when the image cannot be read. */
  async ensure(source: string, target: string, size: string, mime: string): Promise<void> {
    if (await exists(target)) return;
    return this.once(target, () => this.generate(source, target, size, mime));
  }

  /** Runs `job` unless one for `key` is running (concurrent callers share it) or failed a short while ago (rejects at once). */
  once(key: string, job: () => Promise<void>): Promise<void> {
    const failedAt = this.failed.get(key);
    if (failedAt !== undefined && performance.now() - failedAt < RETRY_FAILED_MS) return Promise.reject(new Error('this thumbnail could not be made a short while ago'));
    let running = this.inFlight.get(key);
    if (running === undefined) {
      running = job().then(() => void this.failed.delete(key), (err: unknown) => {
        this.failed.delete(key); // re-inserted last: the map's order is the failures' order
        this.failed.set(key, performance.now());
        if (this.failed.size > MAX_FAILED) this.failed.delete(this.failed.keys().next().value as string);
        throw err;
      }).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, running);
    }
    return running;
  }

  /** The thumbnail of the image file `source` as bytes (a database keeps them: db-storage.ts). */
  async render(source: string, size: string, mime: string): Promise<Buffer> {
    const { options, format } = plan(size, mime);
    await this.slot();
    this.tried++;
    try {
      const { default: sharp } = await import('sharp');
      const out = await sharp(source, { limitInputPixels: MAX_PIXELS }).rotate().resize(options).toFormat(format).toBuffer();
      this.generated++;
      return out;
    } finally {
      this.release();
    }
  }

  private async generate(source: string, target: string, size: string, mime: string): Promise<void> {
    const { options, format } = plan(size, mime);
    await this.slot();
    this.tried++;
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(dirname(target), { recursive: true });
      // loaded on first use: the native module costs a fraction of a second at start-up
      const { default: sharp } = await import('sharp');
      await sharp(source, { limitInputPixels: MAX_PIXELS }).rotate().resize(options).toFormat(format).toFile(temp);
      await rename(temp, target);
      this.generated++;
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    } finally {
      this.release();
    }
  }

  private async slot(): Promise<void> {
    if (this.running < CONCURRENCY) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
