// Durable files, the one owner of "temporary file, fsync, rename, folder sync" and of the small file
// helpers around it (whole writes and reads in chunks: Node's single calls stop at 2 GiB; error codes).
// A leaf: it imports only Node, so every layer (store, files, core, main) may use it.
import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const CHUNK = 1 << 30;

/** What a durable write takes: bytes, a text (UTF-8) or a stream of bytes. */
export type FileContent = Uint8Array | string | Readable;

/** Writes all of `data` at `position`, looping over short writes. */
export async function writeFully(handle: FileHandle, data: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const length = Math.min(CHUNK, data.length - done);
    const { bytesWritten } = await handle.write(data, done, length, position + done);
    done += bytesWritten;
  }
}

/** Reads a whole file, or null when it does not exist; `into` makes the buffer of its size to read into. */
export async function readWhole(path: string, into: (size: number) => Buffer = Buffer.allocUnsafe): Promise<Buffer | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw err;
  }
  try {
    const { size } = await handle.stat();
    const data = into(size);
    let done = 0;
    while (done < size) {
      const { bytesRead } = await handle.read(data, done, Math.min(CHUNK, size - done), done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done === size ? data : data.subarray(0, done);
  } finally {
    await handle.close();
  }
}

/** Flushes a written file's content to the disk. */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a directory's entries (created, renamed, removed files) durable. Windows cannot open folders. */
export async function syncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `content` to `path` and syncs it. `flags` as for `open`: 'w' (create or truncate, the default)
 * or 'wx' (a new file, never over an existing one). The folder entry is not synced: the caller syncs
 * the folder once after a series of writes, or uses `replaceDurably`.
 */
export async function writeSynced(path: string, content: FileContent, flags: 'w' | 'wx' = 'w'): Promise<void> {
  if (typeof content !== 'string' && !(content instanceof Uint8Array)) {
    await pipeline(content, createWriteStream(path, { flags }));
    return syncFile(path);
  }
  const handle = await open(path, flags);
  try {
    await writeFully(handle, typeof content === 'string' ? Buffer.from(content, 'utf8') : content, 0);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` atomically and durably: `content` written to `temp` (by default `<path>.tmp`) and
 * synced, renamed over `path`, then the folder synced. A crash leaves the old file or the new one,
 * never half of one; a failed write removes the temporary file and leaves `path` as it was.
 */
export async function replaceDurably(path: string, content: FileContent, temp = `${path}.tmp`): Promise<void> {
  try {
    await writeSynced(temp, content);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
  await rename(temp, path);
  await syncDir(dirname(path));
}

/** Failures of the disk or the process's descriptors: they stay server errors, never the blame of what was being read. */
const DISK_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EACCES', 'EPERM', 'EMFILE', 'ENFILE', 'EROFS']);
export const isDiskError = (err: unknown): boolean => DISK_ERRORS.has(errorCode(err) ?? '');

/** The `code` of a Node error (`ENOENT`, `EEXIST`...), or undefined. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

/** Narrows anything thrown to an Error (keeping a `code` if the original had one). */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
