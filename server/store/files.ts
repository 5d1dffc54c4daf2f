// Small file helpers for the store: whole writes and reads in chunks (Node's single calls stop at
// 2 GiB), and directory syncs so that creates, renames and deletes survive a power cut.
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

const CHUNK = 1 << 30;

/** Writes all of `data` at `position`, looping over short writes. */
export async function writeFully(handle: FileHandle, data: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const length = Math.min(CHUNK, data.length - done);
    const { bytesWritten } = await handle.write(data, done, length, position + done);
    done += bytesWritten;
  }
}

/** Reads a whole file, or null when it does not exist. */
export async function readWhole(path: string): Promise<Buffer | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw err;
  }
  try {
    const { size } = await handle.stat();
    const data = Buffer.allocUnsafe(size);
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

/** Failures of the disk or the process's descriptors: they stay server errors, never the blame of what was being read. */
const DISK_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EACCES', 'EPERM', 'EMFILE', 'ENFILE', 'EROFS']);
export const isDiskError = (err: unknown): boolean => DISK_ERRORS.has(errorCode(err) ?? '');

export function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

/** Narrows anything thrown to an Error (keeping a `code` if the original had one). */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
