// What the store's page-copy tests (export, file capacity) share: a sql.js database filled with rows
// of random text under an index, and the header bytes a copy of a database may write differently.
import { randomBytes } from 'node:crypto';
import type { Database } from 'sql.js';
import { loadSqlJs } from '../../server/store/db.js';

/**
 * The header bytes a copy may write differently: the file change counter, the schema cookie (a backup
 * moves the destination's on, so its connections read the schema again) and the version that wrote
 * the file.
 */
export const HEADER_COUNTERS = new Set([24, 25, 26, 27, 40, 41, 42, 43, 92, 93, 94, 95]);

/** A database of `rows` rows of 1,000 characters of random text under an index (about 2.3 KB a row with it). */
export async function filledDatabase(rows: number): Promise<Database> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run('PRAGMA locking_mode = EXCLUSIVE');
  db.run('PRAGMA journal_mode = MEMORY');
  db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
  db.run('CREATE INDEX t_body ON t (body)');
  db.run('BEGIN');
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  for (let i = 0; i < rows; i++) insert.run([randomBytes(500).toString('hex')]);
  insert.free();
  db.run('COMMIT');
  return db;
}

/** The page size a SQLite file's header gives (bytes 16-17, where 1 means 65536). */
function pageSizeOf(file: Buffer): number {
  const stored = file.readUInt16BE(16);
  return stored === 1 ? 65536 : stored;
}

/**
 * The pages a SQLite file lists as leaves of its free-list. Their bytes are no part of the database, and
 * a copy made while the database changes may hold other bytes there than the database's `export()`:
 * SQLite never writes a page that a transaction changed and then freed as a leaf (the pager's
 * DONT_WRITE), and the backup API copies a page again only when it is written, so a copy that took the
 * page before keeps what the file held, while the database's page cache, which `export()` reads, may
 * still hold what the transaction left there.
 */
export function freeListLeaves(bytes: Uint8Array): Set<number> {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pageSize = pageSizeOf(file);
  const pageCount = file.length / pageSize;
  const leaves = new Set<number>();
  const trunks = new Set<number>();
  for (let trunk = file.readUInt32BE(32); trunk !== 0; trunk = file.readUInt32BE((trunk - 1) * pageSize)) {
    if (trunk > pageCount || trunks.has(trunk)) throw new Error(`free-list trunk page ${trunk} is past the file's end or listed twice`);
    trunks.add(trunk);
    const at = (trunk - 1) * pageSize;
    for (let i = 0; i < file.readUInt32BE(at + 4); i++) leaves.add(file.readUInt32BE(at + 8 + 4 * i));
  }
  return leaves;
}

/**
 * The offsets where a copy of a database differs from `reference` (of the same length) as a database:
 * outside the header counters and the leaves of `reference`'s free-list (the free-list itself, its
 * trunk pages and the header's count, is compared).
 */
export function differingBytes(copy: Uint8Array, reference: Uint8Array): number[] {
  const file = Buffer.from(reference.buffer, reference.byteOffset, reference.byteLength);
  const other = Buffer.from(copy.buffer, copy.byteOffset, copy.byteLength);
  const pageSize = pageSizeOf(file);
  const free = freeListLeaves(file);
  const differing: number[] = [];
  for (let at = 0; at < file.length; at += pageSize) {
    if (free.has(at / pageSize + 1) || other.compare(file, at, at + pageSize, at, at + pageSize) === 0) continue;
    for (let i = at; i < at + pageSize; i++) if (other[i] !== file[i] && !HEADER_COUNTERS.has(i)) differing.push(i);
  }
  return differing;
}
