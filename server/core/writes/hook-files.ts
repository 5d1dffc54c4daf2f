// Files a hook made with PocketBase's `$filesystem` (fileFromPath, fileFromBytes, fileFromURL) and put in
// a file field: they cross from the hooks' worker as a marked value (HOOK_FILE_KEY, made by
// server/hooks/worker/filesystem.cjs), become a HookFile in the body only where the host reads a hook's
// record (event-records.ts: bodyOfWire, bodyWithChanges; a client's JSON never makes one), and are
// received here through the files layer's one upload path (storage.receive: this node's upload-temp,
// under the field's maxSize) before the write's prepare step, which validates them (maxSize, mimeTypes)
// and places them as any upload (file-uploads.ts). What no write placed is discarded.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { ApiError, badRequest } from '../../errors.js';
import type { FileStorage } from '../../files/storage.js';
import { OversizeFile, StagedFile } from '../../files/staged.js';
import { effectiveMaxSize } from '../fields/file.js';
import type { Collection, FileField } from '../../model/types.js';
import type { PreparedWrite } from './prepared.js';

/** The key marking a `$filesystem` file in a wire record's value. */
export const HOOK_FILE_KEY = '__deskbaseHookFile';
/** What fileFromBytes may hold (its bytes cross the bridge in one message). */
export const HOOK_FILE_BYTES_MAX = 32 * 1024 * 1024;

export type HookFileSource =
  | { kind: 'path'; path: string }
  | { kind: 'bytes'; base64: string }
  | { kind: 'url'; url: string; timeout: number };

export class HookFile {
  constructor(readonly source: HookFileSource, readonly originalName: string) {}

  toJSON(): string {
    return this.originalName;
  }
}

/** A worker's marked value as a HookFile; null when `v` is no marker. */
export function hookFileOf(v: unknown): HookFile | null {
  if (v === null || typeof v !== 'object' || !Object.hasOwn(v, HOOK_FILE_KEY)) return null;
  const m = (v as Record<string, unknown>)[HOOK_FILE_KEY] as Record<string, unknown> | null;
  const name = String((v as Record<string, unknown>).originalName ?? '');
  if (m?.kind === 'path' && typeof m.path === 'string') return new HookFile({ kind: 'path', path: m.path }, name);
  if (m?.kind === 'bytes' && typeof m.base64 === 'string') return new HookFile({ kind: 'bytes', base64: m.base64 }, name);
  if (m?.kind === 'url' && typeof m.url === 'string') return new HookFile({ kind: 'url', url: m.url, timeout: Number(m.timeout) }, name);
  return null;
}

/** The file field a body key names (`docs`, `docs+`, `+docs`). */
function fileFieldOf(c: Collection, key: string): FileField | undefined {
  const name = key.replace(/^\+/, '').replace(/\+$/, '');
  const f = c.fields.find((x) => x.name === name);
  return f?.type === 'file' ? f : undefined;
}

const itemsOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

function hasHookFiles(c: Collection, body: unknown): body is Record<string, unknown> {
  if (body === null || typeof body !== 'object') return false;
  for (const [key, v] of Object.entries(body)) if (fileFieldOf(c, key) && itemsOf(v).some((i) => i instanceof HookFile)) return true;
  return false;
}

/** Chunks of `source` until past `limit` (then the download stops: receive() sees it oversize). */
export async function* capped(source: AsyncIterable<Uint8Array>, limit: number, stop: () => void): AsyncGenerator<Buffer> {
  let n = 0;
  for await (const chunk of source) {
    n += chunk.length;
    yield Buffer.from(chunk);
    if (n > limit) {
      stop();
      return;
    }
  }
}

/**
 * A hook's timeout in seconds as a timer's delay: at most 2^31-1 ms (~24.8 days), the longest a timer
 * holds (past it Node fires it after 1 ms, and AbortSignal.timeout refuses 2^32 ms and more); a longer
 * one (PocketBase takes any) waits that long, no timeout in practice.
 */
export function timerDelayMs(seconds: number): number {
  return Math.min(seconds * 1000, 2 ** 31 - 1);
}

async function receiveOne(storage: FileStorage, file: HookFile, limit: number): Promise<StagedFile | OversizeFile> {
  const s = file.source;
  if (s.kind === 'bytes') return storage.receive(Readable.from([Buffer.from(s.base64, 'base64')]), file.originalName, limit);
  if (s.kind === 'path') {
    const info = await stat(s.path).catch((err: Error) => {
      throw badRequest(`$filesystem.fileFromPath: cannot read "${s.path}" (${err.message}).`);
    });
    if (!info.isFile()) throw badRequest(`$filesystem.fileFromPath: "${s.path}" is not a file.`);
    if (info.size > limit) return new OversizeFile(file.originalName, limit);
    return storage.receive(Readable.from(capped(createReadStream(s.path), limit, () => undefined)), file.originalName, limit);
  }
  let url: URL;
  try {
    url = new URL(s.url);
  } catch {
    throw badRequest(`$filesystem.fileFromURL: invalid url "${s.url.slice(0, 200)}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(`$filesystem.fileFromURL: only http and https URLs (got ${url.protocol}).`);
  const seconds = s.timeout > 0 ? s.timeout : 120;
  // one controller, its own timer: Node 20's AbortSignal.any() holds the signals it combines only weakly,
  // so an AbortSignal.timeout() given to it was collected by a garbage collection during the download and
  // its timer cleared with it (the download then waited for the server, however long)
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new DOMException(`no answer within ${seconds} s`, 'TimeoutError')), timerDelayMs(seconds));
  const signal = abort.signal;
  const failed = (err: unknown): never => {
    if (err instanceof ApiError) throw err;
    const e = err as Error;
    throw badRequest(`$filesystem.fileFromURL ${s.url}: ${e.name === 'TimeoutError' ? `no answer within ${seconds} s` : e.message}.`);
  };
  try {
    const res = await fetch(url, { signal, redirect: 'follow' });
    // as PocketBase's NewFileFromURL
    if (res.status < 200 || res.status > 399) throw badRequest(`$filesystem.fileFromURL ${s.url}: failed to download (status ${res.status}).`);
    if (!res.body) return await storage.receive(Readable.from([]), file.originalName, limit);
    return await storage.receive(Readable.from(capped(res.body as unknown as AsyncIterable<Uint8Array>, limit, () => abort.abort())), file.originalName, limit);
  } catch (err) {
    return failed(err);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `prepare` with the body's HookFiles received first (each under its field's maxSize; a file past it
 * becomes the field's size error in validation); what no write placed is discarded if `prepare` fails.
 * A body without HookFiles goes to `prepare` as it is.
 */
export async function withHookFiles<T>(storage: FileStorage, c: Collection, body: unknown, prepare: (body: unknown) => Promise<PreparedWrite<T>>): Promise<PreparedWrite<T>> {
  if (!hasHookFiles(c, body)) return prepare(body);
  const staged: StagedFile[] = [];
  const out: Record<string, unknown> = { ...body };
  try {
    for (const [key, v] of Object.entries(body)) {
      const field = fileFieldOf(c, key);
      if (!field || !itemsOf(v).some((i) => i instanceof HookFile)) continue;
      const items: unknown[] = [];
      for (const item of itemsOf(v)) {
        if (!(item instanceof HookFile)) {
          items.push(item);
          continue;
        }
        const got = await receiveOne(storage, item, effectiveMaxSize(field));
        if (got instanceof StagedFile) staged.push(got);
        items.push(got);
      }
      out[key] = Array.isArray(v) ? items : items[0];
    }
    return await prepare(out);
  } catch (err) {
    await storage.discard(staged);
    throw err;
  }
}
