// The database's bytes (a checkpoint's snapshot, a backup's data.db) copied in slices, so that no
// export holds the event loop in one stretch (issue 28). sql.js's own `export()` copies every page in
// one call (about 450 ms for 100k posts, seconds for a GiB). Here SQLite's backup API, which sql.js
// exports (`_sqlite3_backup_init/step/finish`), copies PAGES_PER_STEP pages per call into a
// database whose in-memory file is an array this module made at the final size, with a turn of the
// loop between calls; the bytes are then that array, with no further copy.
//
// The array becomes the file's own storage because sql.js hands a new database's initial bytes to
// its in-memory file system, which keeps `data.slice()` of them: the array answers `slice` with
// itself. That is sql.js's inner working, not its API, so the result is checked (SQLite's header, the
// page count) and, when it does not hold, the export falls back to `export()` in one stretch.
//
// The caller holds the store's turn (no write commits between the first page and the last); reads
// go on between the steps, on the same connection, which a backup allows.
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import type { Database, SqlJsStatic } from 'sql.js';
import { writeFully } from '../durable-files.js';
import { crc32Combine } from './journal-format.js';
import type { SnapshotId } from './journal-format.js';

/** Pages per backup step: 512 pages of 4 KiB (2 MiB), a few ms each on an idle machine. */
const PAGES_PER_STEP = 512;

const SQLITE_OK = 0;
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_DONE = 101;

/** The functions sql.js exports beside its API (sql-wasm.js's EXPORTED_FUNCTIONS). */
interface SqlJsExports {
  _sqlite3_backup_init(dest: number, destName: number, source: number, sourceName: number): number;
  _sqlite3_backup_step(backup: number, pages: number): number;
  _sqlite3_backup_finish(backup: number): number;
  _sqlite3_errmsg(db: number): number;
  stringToNewUTF8(text: string): number;
  UTF8ToString(pointer: number): string;
  _free(pointer: number): void;
}

/** The pointer of a database's connection (sql.js keeps it as `db`). */
const handle = (db: Database): number => (db as unknown as { db: number }).db;

/** A byte array whose `slice()` answers itself: the in-memory file system then keeps it as the file. */
function ownedArray(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  Object.defineProperty(bytes, 'slice', { value: () => bytes, enumerable: false });
  return bytes;
}

function pageFigures(db: Database): { pageSize: number; pageCount: number } {
  const [pageSize, pageCount] = ['page_size', 'page_count'].map((name) => Number(db.exec(`PRAGMA ${name}`)[0].values[0][0]));
  return { pageSize, pageCount };
}

/** An empty database of `pageSize` (one page), as SQLite writes it: a copy's destination starts from it. */
function emptyDatabase(SQL: SqlJsStatic, pageSize: number): Uint8Array {
  const template = new SQL.Database();
  try {
    template.run(`PRAGMA page_size = ${pageSize}`);
    template.run('PRAGMA user_version = 0');
    template.run('VACUUM');
    return template.export();
  } finally {
    template.close();
  }
}

/**
 * Copies `db` into `dest` with SQLite's backup API, PAGES_PER_STEP pages per step, `between()` awaited
 * between steps.
 */
async function backupInSteps(api: SqlJsExports, db: Database, dest: Database, between: () => Promise<void>): Promise<void> {
  dest.run('PRAGMA journal_mode = OFF');
  const main = api.stringToNewUTF8('main');
  let backup = 0;
  try {
    backup = api._sqlite3_backup_init(handle(dest), main, handle(db), main);
    if (backup === 0) throw new Error(`export failed: ${api.UTF8ToString(api._sqlite3_errmsg(handle(dest)))}`);
    for (;;) {
      const rc = api._sqlite3_backup_step(backup, PAGES_PER_STEP);
      if (rc === SQLITE_DONE) break;
      if (rc !== SQLITE_OK && rc !== SQLITE_BUSY && rc !== SQLITE_LOCKED) throw new Error(`export failed: ${api.UTF8ToString(api._sqlite3_errmsg(handle(dest)))}`);
      await between();
    }
  } finally {
    if (backup !== 0) api._sqlite3_backup_finish(backup);
    api._free(main);
  }
}

/**
 * The database's bytes, as `export()` gives them, copied PAGES_PER_STEP pages at a time with
 * `pause()` awaited between steps. Falls back to `export()` where the sliced copy cannot be made.
 */
export async function exportInSlices(SQL: SqlJsStatic, db: Database, pause: () => Promise<void>): Promise<Uint8Array> {
  const api = SQL as unknown as SqlJsExports;
  const { pageSize, pageCount } = pageFigures(db);
  if (pageCount === 0 || typeof api._sqlite3_backup_step !== 'function') return db.export();
  // the destination starts as a one-page empty database of the same page size, in a file already at
  // its final size, so that the copy writes into the array and never grows (and so replaces) it
  const first = emptyDatabase(SQL, pageSize);
  const size = pageSize * pageCount;
  if (first.length === 0 || first.length > size) return db.export();
  const bytes = ownedArray(size);
  bytes.set(first);
  const dest = new SQL.Database(bytes);
  try {
    await backupInSteps(api, db, dest, pause);
  } finally {
    dest.close();
  }
  // what export() writes there too: the file format of a database without WAL
  bytes[18] = 1;
  bytes[19] = 1;
  return copiedWhole(bytes, pageSize, pageCount) ? bytes : db.export();
}

/**
 * The database copied into an open file (a checkpoint's `data.db.tmp`) as the copy goes, so that it
 * is never held twice in memory (issue 28: a checkpoint at 3 GiB held 6.4 GiB). The same backup steps
 * as `exportInSlices`, into a destination whose in-memory file is a `StreamedFile`: each page SQLite
 * writes there is copied out of sql.js's memory, checksummed, and written to `handle` by an
 * asynchronous write awaited after each step. Page 1, which the backup's commit writes again last, is
 * kept in memory and written at the end. Resolves with the snapshot's id (size and CRC-32, as
 * `snapshotId` computes them over the file) once every byte is written, not yet synced (the caller
 * syncs and renames), or with null when the sliced copy cannot be made or does not check out (the
 * caller falls back to `exportInSlices`).
 */
export async function exportToFile(SQL: SqlJsStatic, db: Database, file: FileHandle, pause: () => Promise<void>): Promise<SnapshotId | null> {
  const api = SQL as unknown as SqlJsExports;
  const { pageSize, pageCount } = pageFigures(db);
  if (pageCount === 0 || typeof api._sqlite3_backup_step !== 'function') return null;
  const first = emptyDatabase(SQL, pageSize);
  if (first.length !== pageSize) return null;
  const streamed = new StreamedFile(file, first);
  const dest = new SQL.Database(streamed.initialBytes());
  try {
    await backupInSteps(api, db, dest, async () => {
      await streamed.flush();
      await pause();
    });
  } finally {
    dest.close();
  }
  return streamed.finish(pageCount, pause);
}

/** Bytes past which the pages waiting in memory are written out within a step (SQLite's spills). */
const RUN_BYTES = PAGES_PER_STEP * 4096 + 65536;

/**
 * The in-memory file of `exportToFile`'s destination, standing where sql.js's file system keeps a
 * file's array (it calls `length`, `set` to write and `subarray` to read): writes go to a file on disk.
 * Bytes past page 1 are gathered in runs of consecutive bytes, written out by `flush()`; the checksum
 * follows them while they come in order (each page once, ascending), else it is computed again from
 * the file at the end. A read (SQLite reading back a page it spilled) is served from page 1, the runs
 * not yet written, and the file.
 */
class StreamedFile {
  /** Larger than any file: sql.js's file system then never replaces this array by a bigger one. */
  readonly length = Number.MAX_SAFE_INTEGER;
  private readonly page: Uint8Array;
  private readonly pageSize: number;
  private firstWritten = false;
  private runs: { at: number; bytes: Buffer; used: number }[] = [];
  /** The checksum of bytes [pageSize, next), while they came in order. */
  private crc = 0;
  private next: number;
  private inOrder = true;
  private end = 0;

  constructor(private readonly file: FileHandle, first: Uint8Array) {
    this.pageSize = first.length;
    this.page = new Uint8Array(first);
    this.next = this.pageSize;
  }

  /** The destination's initial bytes (page 1 of an empty database) whose `slice()` is this file. */
  initialBytes(): Uint8Array {
    const bytes = new Uint8Array(this.page);
    Object.defineProperty(bytes, 'slice', { value: () => this, enumerable: false });
    return bytes;
  }

  set(source: Uint8Array, at = 0): void {
    let from = 0;
    if (at < this.pageSize) {
      from = Math.min(source.length, this.pageSize - at);
      this.page.set(source.subarray(0, from), at);
      this.firstWritten = true;
      at += from;
    }
    if (from >= source.length) return;
    const bytes = source.subarray(from);
    if (this.inOrder && at === this.next) {
      this.crc = crc32(bytes, this.crc);
      this.next += bytes.length;
    } else this.inOrder = false;
    this.end = Math.max(this.end, at + bytes.length);
    const last = this.runs.at(-1);
    if (last !== undefined && last.at + last.used === at && last.used + bytes.length <= last.bytes.length) {
      last.bytes.set(bytes, last.used);
      last.used += bytes.length;
    } else {
      const run = { at, bytes: Buffer.allocUnsafe(Math.max(RUN_BYTES, bytes.length)), used: bytes.length };
      run.bytes.set(bytes);
      this.runs.push(run);
    }
  }

  subarray(begin: number, end: number): Uint8Array {
    if (end <= this.pageSize) return this.page.subarray(begin, end);
    const out = Buffer.alloc(end - begin);
    const fromDisk = Math.max(begin, this.pageSize);
    if (fromDisk < end) readSync(this.file.fd, out, fromDisk - begin, end - fromDisk, fromDisk);
    for (const run of this.runs) {
      const lo = Math.max(begin, run.at);
      const hi = Math.min(end, run.at + run.used);
      if (lo < hi) out.set(run.bytes.subarray(lo - run.at, hi - run.at), lo - begin);
    }
    if (begin < this.pageSize) out.set(this.page.subarray(begin), 0);
    return out;
  }

  async flush(): Promise<void> {
    const runs = this.runs;
    this.runs = [];
    for (const run of runs) await writeFully(this.file, run.bytes.subarray(0, run.used), run.at);
  }

  /** Writes page 1 and what is left, and answers the file's id, or null when it is not the whole copy. */
  async finish(pageCount: number, pause: () => Promise<void>): Promise<SnapshotId | null> {
    await this.flush();
    const size = this.pageSize * pageCount;
    // what export() writes there too: the file format of a database without WAL
    this.page[18] = 1;
    this.page[19] = 1;
    if (!this.firstWritten || this.end !== size || !copiedWhole(this.page, this.pageSize, pageCount)) return null;
    await writeFully(this.file, this.page, 0);
    if (this.inOrder && this.next === size) return { size, crc: crc32Combine(crc32(this.page), this.crc, size - this.pageSize) };
    return { size, crc: await fileCrc(this.file, size, pause) };
  }
}

/** The CRC-32 of a file's first `size` bytes, read 8 MiB at a time. */
async function fileCrc(file: FileHandle, size: number, pause: () => Promise<void>): Promise<number> {
  const chunk = Buffer.allocUnsafe(8 * 1024 * 1024);
  let crc = 0;
  for (let at = 0; at < size; ) {
    const { bytesRead } = await file.read(chunk, 0, Math.min(chunk.length, size - at), at);
    if (bytesRead === 0) throw new Error('export failed: the snapshot file is shorter than what was written');
    crc = crc32(chunk.subarray(0, bytesRead), crc);
    at += bytesRead;
    await pause();
  }
  return crc;
}

/** Whether the array holds the whole copy: SQLite's header, the page size and the page count. */
function copiedWhole(bytes: Uint8Array, pageSize: number, pageCount: number): boolean {
  const header = Buffer.from(bytes.buffer, bytes.byteOffset, 100);
  if (header.toString('latin1', 0, 16) !== 'SQLite format 3\0') return false;
  const storedPageSize = header.readUInt16BE(16);
  return (storedPageSize === 1 ? 65536 : storedPageSize) === pageSize && header.readUInt32BE(28) === pageCount;
}
