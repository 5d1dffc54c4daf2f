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
import { applyOperator, crc32Operator } from './journal-format.js';
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
export function emptyDatabase(SQL: SqlJsStatic, pageSize: number): Uint8Array {
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

/** How a copy to a file (`exportToFile`) runs its steps, and what it hands over when it ends. */
export interface FileExportTurns<T> {
  /** Runs one step where no write transaction is open, and nothing else runs on the database. */
  inTurn<R>(step: () => R): Promise<R>;
  /** Awaited between steps: a turn of the event loop once the copy has held it a while. */
  pause(): Promise<void>;
  /**
   * Called in the turn of the last step, right after it, with the id of the file (resolved once it
   * is all written): the copy holds exactly the transactions committed so far.
   */
  done(id: Promise<SnapshotId>): T;
}

/**
 * The database copied into an open file (a checkpoint's `data.db.tmp`) as the copy goes, so that it
 * is never held twice in memory (issue 28: a checkpoint at 3 GiB held 6.4 GiB), and without holding
 * writes back for the whole copy. SQLite's backup API copies PAGES_PER_STEP pages per step, each step
 * in a turn of the store (`turns.inTurn`: no transaction open), so writes commit between the steps;
 * the backup, made on the database's own connection, copies again into the destination every page
 * a commit writes that it had already copied (SQLite's `sqlite3BackupUpdate`), so the copy ends as
 * the database stands at its last step, where `turns.done` is called. Save the free-list's leaves: a
 * page a commit changes and then frees is never written (the pager's DONT_WRITE), so the copy keeps
 * its bytes as it took them, where `export()` may read the commit's from the page cache; they are no
 * part of the database (test/store/export-file.test.ts). The destination's in-memory
 * file is a `StreamedFile`: each page written there is copied out of sql.js's memory, checksummed, and
 * written to `file` by asynchronous writes awaited after each step. Answers what `done` returned, or
 * null when the streamed copy cannot be made or does not check out (`done` is then not called; the
 * caller falls back to `exportInSlices`).
 */
export async function exportToFile<T>(SQL: SqlJsStatic, db: Database, file: FileHandle, turns: FileExportTurns<T>): Promise<T | null> {
  const api = SQL as unknown as SqlJsExports;
  if (typeof api._sqlite3_backup_step !== 'function') return null;
  const { pageSize } = pageFigures(db);
  const first = emptyDatabase(SQL, pageSize);
  if (first.length !== pageSize) return null;
  const streamed = new StreamedFile(file, first);
  const dest = new SQL.Database(streamed.initialBytes());
  const main = api.stringToNewUTF8('main');
  let backup = 0;
  let open = true;
  const close = (): void => {
    if (!open) return;
    open = false;
    if (backup !== 0) api._sqlite3_backup_finish(backup);
    api._free(main);
    dest.close();
  };
  try {
    dest.run('PRAGMA journal_mode = OFF');
    backup = api._sqlite3_backup_init(handle(dest), main, handle(db), main);
    if (backup === 0) throw new Error(`export failed: ${api.UTF8ToString(api._sqlite3_errmsg(handle(dest)))}`);
    for (;;) {
      const ended = await turns.inTurn((): { result: T | null } | null => {
        const rc = api._sqlite3_backup_step(backup, PAGES_PER_STEP);
        if (rc === SQLITE_DONE) {
          close();
          const { pageCount } = pageFigures(db);
          return { result: pageCount > 0 && streamed.whole(pageCount) ? turns.done(streamed.finish(pageCount, turns.pause)) : null };
        }
        if (rc !== SQLITE_OK && rc !== SQLITE_BUSY && rc !== SQLITE_LOCKED) throw new Error(`export failed: ${api.UTF8ToString(api._sqlite3_errmsg(handle(dest)))}`);
        return null;
      });
      if (ended !== null) return ended.result;
      await streamed.flush();
      await turns.pause();
    }
  } finally {
    close();
  }
}

/** Bytes past which the pages waiting in memory start a new run. */
const RUN_BYTES = PAGES_PER_STEP * 4096 + 65536;

/**
 * The in-memory file of `exportToFile`'s destination, standing where sql.js's file system keeps a
 * file's array (it asks `length`, calls `set` to write and `subarray` to read): writes go to a file on
 * disk. Written bytes are gathered in runs of consecutive bytes and written out, in the order they
 * came, by `flush()`. Each page's CRC-32 is kept as it is written (again when it is written again), so
 * the file's checksum is combined from them at the end without reading the file back; a page never
 * written (SQLite leaves the page at 1 GiB, its lock byte's, unused) is a hole of zeros. A read
 * (SQLite reading back a page it spilled) is served from the runs not yet on disk, then the file.
 */
class StreamedFile {
  /** Larger than any file: sql.js's file system then never replaces this array by a bigger one. */
  readonly length = Number.MAX_SAFE_INTEGER;
  private readonly pageSize: number;
  private readonly initial: Uint8Array;
  private runs: { at: number; bytes: Buffer; used: number }[] = [];
  /** Runs being written out: still read from here until their writes are done. */
  private writing: { at: number; bytes: Buffer; used: number }[] = [];
  private pageCrcs = new Uint32Array(1024);
  private written = new Uint8Array(1024);
  /** Every write was of whole pages (SQLite's are): the per-page checksums hold. */
  private aligned = true;
  private end = 0;

  constructor(private readonly file: FileHandle, first: Uint8Array) {
    this.pageSize = first.length;
    this.initial = new Uint8Array(first);
    this.end = 0;
  }

  /** The destination's initial bytes (page 1 of an empty database) whose `slice()` is this file. */
  initialBytes(): Uint8Array {
    // the file starts as that page: it reads as that until SQLite writes page 1
    this.runs.push({ at: 0, bytes: Buffer.from(this.initial), used: this.initial.length });
    const bytes = new Uint8Array(this.initial);
    Object.defineProperty(bytes, 'slice', { value: () => this, enumerable: false });
    return bytes;
  }

  set(source: Uint8Array, at = 0): void {
    const size = this.pageSize;
    if (at % size !== 0 || source.length % size !== 0) this.aligned = false;
    else {
      for (let offset = 0; offset < source.length; offset += size) this.pageWritten((at + offset) / size, source.subarray(offset, offset + size));
    }
    this.end = Math.max(this.end, at + source.length);
    const last = this.runs.at(-1);
    if (last !== undefined && last.at + last.used === at && last.used + source.length <= last.bytes.length) {
      last.bytes.set(source, last.used);
      last.used += source.length;
    } else {
      const run = { at, bytes: Buffer.allocUnsafe(Math.max(RUN_BYTES, source.length)), used: source.length };
      run.bytes.set(source);
      this.runs.push(run);
    }
  }

  private pageWritten(index: number, page: Uint8Array): void {
    if (index >= this.pageCrcs.length) {
      const grown = Math.max(index + 1, this.pageCrcs.length * 2);
      const crcs = new Uint32Array(grown);
      crcs.set(this.pageCrcs);
      this.pageCrcs = crcs;
      const written = new Uint8Array(grown);
      written.set(this.written);
      this.written = written;
    }
    this.pageCrcs[index] = crc32(page);
    this.written[index] = 1;
  }

  subarray(begin: number, end: number): Uint8Array {
    const out = Buffer.alloc(end - begin);
    readSync(this.file.fd, out, 0, end - begin, begin);
    for (const run of [...this.writing, ...this.runs]) {
      const lo = Math.max(begin, run.at);
      const hi = Math.min(end, run.at + run.used);
      if (lo < hi) out.set(run.bytes.subarray(lo - run.at, hi - run.at), lo - begin);
    }
    return out;
  }

  async flush(): Promise<void> {
    const runs = this.runs;
    this.runs = [];
    this.writing.push(...runs);
    try {
      for (const run of runs) await writeFully(this.file, run.bytes.subarray(0, run.used), run.at);
    } finally {
      this.writing = this.writing.filter((run) => !runs.includes(run));
    }
  }

  /**
   * Whether the file holds a whole database of `pageCount` pages that `finish` can checksum: only whole
   * pages written, page 1 among them and still in memory, up to the last page, and its header.
   */
  whole(pageCount: number): boolean {
    if (!this.aligned || this.written[0] !== 1 || this.end !== pageCount * this.pageSize) return false;
    const page = this.page(0);
    return page !== null && copiedWhole(page, this.pageSize, pageCount);
  }

  /** Page `index` as last written, when it is still in memory. */
  private page(index: number): Uint8Array | null {
    const at = index * this.pageSize;
    for (let i = this.runs.length - 1; i >= 0; i--) {
      const run = this.runs[i];
      if (run.at <= at && at + this.pageSize <= run.at + run.used) return run.bytes.subarray(at - run.at, at - run.at + this.pageSize);
    }
    return null;
  }

  /** Writes what is left, with page 1 as export() writes it, and answers the file's id. */
  async finish(pageCount: number, pause: () => Promise<void>): Promise<SnapshotId> {
    const first = this.page(0);
    // what export() writes there too: the file format of a database without WAL
    if (first !== null && (first[18] !== 1 || first[19] !== 1)) {
      first[18] = 1;
      first[19] = 1;
      this.pageCrcs[0] = crc32(first);
    }
    await this.flush();
    const size = this.pageSize * pageCount;
    if (first === null) throw new Error('export failed: page 1 is no longer in memory'); // whole() said it was
    // crc(A + page) = (crc(A) moved past a page's bytes) ^ crc(page): the move is one linear operator
    const past = crc32Operator(this.pageSize);
    const zeroPage = crc32(Buffer.alloc(this.pageSize));
    let crc = this.pageCrcs[0];
    for (let index = 1; index < pageCount; index++) {
      crc = applyOperator(past, crc) ^ (this.written[index] === 1 ? this.pageCrcs[index] : zeroPage);
      if (index % 65536 === 0) await pause();
    }
    return { size, crc: crc >>> 0 };
  }
}

/** Whether the array holds the whole copy: SQLite's header, the page size and the page count. */
function copiedWhole(bytes: Uint8Array, pageSize: number, pageCount: number): boolean {
  const header = Buffer.from(bytes.buffer, bytes.byteOffset, 100);
  if (header.toString('latin1', 0, 16) !== 'SQLite format 3\0') return false;
  const storedPageSize = header.readUInt16BE(16);
  return (storedPageSize === 1 ? 65536 : storedPageSize) === pageSize && header.readUInt32BE(28) === pageCount;
}
