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
