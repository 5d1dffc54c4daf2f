// The snapshot `data.db`: a plain SQLite file (the sqlite3 CLI opens it). It is replaced atomically:
// written to `data.db.tmp`, synced, renamed over `data.db`, then the folder is synced.
import { open, rename, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { readWhole, replaceDurably, syncDir } from '../durable-files.js';

export const SNAPSHOT_FILE = 'data.db';
const TEMP_FILE = 'data.db.tmp';
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

export function snapshotPath(dir: string): string {
  return join(dir, SNAPSHOT_FILE);
}

/**
 * Reads the snapshot, or null when there is none yet. A file that is not a SQLite database is an
 * error naming it: it is never replaced silently. With a `capacity`, the bytes are read into an array
 * of that many bytes (capped at a typed array's largest, 4 GiB) that becomes the in-memory file's own
 * storage (`withCapacity`).
 */
export async function readSnapshot(dir: string, capacity = 0): Promise<Buffer | null> {
  const path = snapshotPath(dir);
  const bytes = await readWhole(path, (size) => withCapacity(size, capacity));
  if (bytes !== null && !bytes.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) {
    throw new Error(`${path} is not a SQLite database (bad header); refusing to open the data folder`);
  }
  return bytes;
}

/** The largest typed array V8 makes (Node 20: 2^32 elements), so the largest in-memory file. */
export const MAX_FILE_CAPACITY = 2 ** 32;

/**
 * A buffer of `size` bytes over storage of `capacity` bytes, for a database's initial bytes: sql.js's
 * in-memory file system keeps `data.slice()` of them as the file's array, and this buffer answers
 * `slice()` with the whole storage, so the file starts with room to grow. The file system grows a
 * full array by an eighth at a time, copying all of it in one stretch (MEMFS.expandFileStorage:
 * seconds for a GiB); with the room made once, a write that grows the file copies nothing. The
 * storage is zero-filled, which the OS commits lazily: room costs no memory until it is written.
 */
export function withCapacity(size: number, capacity: number): Buffer {
  const room = Math.max(size, Math.min(capacity, MAX_FILE_CAPACITY));
  if (room === size) return Buffer.allocUnsafe(size);
  let storage: ArrayBuffer;
  try {
    storage = new ArrayBuffer(room);
  } catch {
    // a system that commits memory up front (Windows' commit charge) may refuse that much: then less
    // room, or none (sql.js's own growth, copying the file, as before)
    try {
      storage = new ArrayBuffer(Math.max(size, Math.min(room, size * 2, size + 256 * 1024 * 1024)));
    } catch {
      return Buffer.allocUnsafe(size);
    }
  }
  const bytes = Buffer.from(storage, 0, size);
  Object.defineProperty(bytes, 'slice', { value: () => new Uint8Array(storage), enumerable: false });
  return bytes;
}

export async function writeSnapshot(dir: string, bytes: Uint8Array): Promise<void> {
  await replaceDurably(snapshotPath(dir), bytes, join(dir, TEMP_FILE));
}

/**
 * A snapshot written piece by piece (a checkpoint's copy, export.ts `exportToFile`): `data.db.tmp`,
 * opened empty. `commit()` syncs it and renames it over `data.db`, then syncs the folder, as
 * `writeSnapshot` does; `discard()` closes and removes it.
 */
export async function openSnapshotWriter(dir: string): Promise<{ file: FileHandle; commit(): Promise<void>; discard(): Promise<void> }> {
  const temp = join(dir, TEMP_FILE);
  const file = await open(temp, 'w+');
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await file.close();
  };
  return {
    file,
    async commit() {
      await file.sync();
      await close();
      await rename(temp, snapshotPath(dir));
      await syncDir(dir);
    },
    async discard() {
      await close().catch(() => undefined);
      await rm(temp, { force: true });
    },
  };
}

/** A temporary file left by a checkpoint that did not finish. */
export async function removeTempSnapshot(dir: string): Promise<void> {
  await rm(join(dir, TEMP_FILE), { force: true });
}
