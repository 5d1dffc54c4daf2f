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
import type { Database, SqlJsStatic } from 'sql.js';

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
  const template = new SQL.Database();
  let first: Uint8Array;
  try {
    template.run(`PRAGMA page_size = ${pageSize}`);
    template.run('PRAGMA user_version = 0');
    template.run('VACUUM');
    first = template.export();
  } finally {
    template.close();
  }
  const size = pageSize * pageCount;
  if (first.length === 0 || first.length > size) return db.export();
  const bytes = ownedArray(size);
  bytes.set(first);
  const dest = new SQL.Database(bytes);
  try {
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
        await pause();
      }
    } finally {
      if (backup !== 0) api._sqlite3_backup_finish(backup);
      api._free(main);
    }
  } finally {
    dest.close();
  }
  // what export() writes there too: the file format of a database without WAL
  bytes[18] = 1;
  bytes[19] = 1;
  return copiedWhole(bytes, pageSize, pageCount) ? bytes : db.export();
}

/** Whether the array holds the whole copy: SQLite's header, the page size and the page count. */
function copiedWhole(bytes: Uint8Array, pageSize: number, pageCount: number): boolean {
  const header = Buffer.from(bytes.buffer, bytes.byteOffset, 100);
  if (header.toString('latin1', 0, 16) !== 'SQLite format 3\0') return false;
  const storedPageSize = header.readUInt16BE(16);
  return (storedPageSize === 1 ? 65536 : storedPageSize) === pageSize && header.readUInt32BE(28) === pageCount;
}
