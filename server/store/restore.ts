// Swapping a restored archive into the data folder, crash-safe. The archive is first extracted into
// `restore-staging/` (data.db and storage/, every file synced), then the marker `restore-commit` is
// written: that is the commit point. From it on the swap only rolls forward, every step repeatable:
// the old storage/ goes and the staged one takes its place, the journal segments go, the staged
// data.db is renamed over data.db, the marker goes. `openStore` finishes a swap a crash interrupted
// (and drops a staging folder that never got its marker) before it reads anything.
import { access, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { ReadDb } from './contract.js';
import { syncDir, writeSynced } from '../durable-files.js';
import { removeSegmentsBefore } from './journal-format.js';
import { openDatabase } from './recovery.js';
import { describeWritingObjects, queryAll, queryGet, StatementCache, writingSchemaObjects } from './statements.js';
import { SNAPSHOT_FILE } from './snapshot.js';
import { nextTurn } from '../loop-slice.js';

export const RESTORE_STAGING = 'restore-staging';
const MARKER = 'restore-commit';
const STORAGE = 'storage';
/** Tables every Deskbase database has (store/schema.ts). */
const SYSTEM_TABLES = ['_collections', '_sessions', '_params'];

const exists = (path: string) => access(path).then(() => true, () => false);

/** Writes the commit marker: from here on the staged data replaces the folder's. */
export async function commitRestore(dir: string): Promise<void> {
  await writeSynced(join(dir, MARKER), '');
  await syncDir(dir);
}

/** Finishes a committed swap, or drops an uncommitted staging folder. Returns whether a swap ran. */
export async function finishRestore(dir: string): Promise<boolean> {
  const staging = join(dir, RESTORE_STAGING);
  if (!(await exists(join(dir, MARKER)))) {
    await rm(staging, { recursive: true, force: true });
    return false;
  }
  if (await exists(join(staging, STORAGE))) {
    await rm(join(dir, STORAGE), { recursive: true, force: true });
    await rename(join(staging, STORAGE), join(dir, STORAGE));
  }
  if (await exists(join(staging, SNAPSHOT_FILE))) {
    // the segments continue the old snapshot: they go before the new one takes its name
    await removeSegmentsBefore(dir, Number.MAX_SAFE_INTEGER);
    await syncDir(dir);
    await rename(join(staging, SNAPSHOT_FILE), join(dir, SNAPSHOT_FILE));
  }
  await syncDir(dir);
  await rm(join(dir, MARKER), { force: true });
  await rm(staging, { recursive: true, force: true });
  await syncDir(dir);
  return true;
}

/**
 * Opens a database file for checking (a restore's candidate): a SQLite file with Deskbase's system
 * tables that SQLite's quick_check finds healthy. Throws with the reason otherwise. The quick_check,
 * which reads every page (seconds for a GiB), runs on a worker thread of its own with its own sql.js,
 * over the bytes copied once into shared memory a slice per turn of the loop; the database then opens
 * here over that same memory, with no further copy.
 */
export async function inspectDatabase(SQL: SqlJsStatic, bytes: Buffer): Promise<ReadDb & { close(): void }> {
  const shared = await sharedCopy(bytes);
  const problem = await quickCheckInWorker(shared);
  if (problem !== null) throw new Error(problem);
  // the file system keeps `slice()` of a database's initial bytes as its file: here the shared bytes themselves
  Object.defineProperty(shared, 'slice', { value: () => shared, enumerable: false });
  const db = openDatabase(SQL, shared as Buffer, 'data.db in the archive');
  try {
    const tables = new Set(db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values.map((v) => String(v[0])) ?? []);
    const missing = SYSTEM_TABLES.filter((t) => !tables.has(t));
    if (missing.length > 0) throw new Error(`data.db in the archive is not a Deskbase database (no ${missing.join(', ')})`);
    const writing = writingSchemaObjects(db);
    if (writing.length > 0) {
      throw new Error(`data.db in the archive has ${describeWritingObjects(writing)} running pragma_optimize (it writes statistics SQLite does not count as changes, which the journal cannot replay; Deskbase refuses it in new SQL: use PRAGMA optimize): drop ${writing.length > 1 ? 'them' : 'it'} from that database and restore again`);
    }
  } catch (err) {
    db.close();
    throw err;
  }
  const cache = new StatementCache(db);
  return {
    all: (sql, params) => settled(() => queryAll(cache, sql, params)),
    get: (sql, params) => settled(() => queryGet(cache, sql, params)),
    close: () => {
      cache.clear();
      db.close();
    },
  };
}

/** Bytes copied per turn of the loop into shared memory. */
const COPY_SLICE = 8 * 1024 * 1024;

async function sharedCopy(bytes: Uint8Array): Promise<Uint8Array> {
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
  for (let at = 0; at < bytes.length; at += COPY_SLICE) {
    if (at > 0) await nextTurn();
    shared.set(bytes.subarray(at, at + COPY_SLICE), at);
  }
  return shared;
}

/**
 * The worker: sql.js of its own over the shared bytes (no copy: their `slice()` answers themselves),
 * SQLite's quick_check, one answer (null when healthy, else what is wrong), then it exits.
 */
const CHECK_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  let answer;
  try {
    const SQL = await require(workerData.sqlJs)({ useOldExtensionFunctions: false });
    const bytes = workerData.bytes;
    Object.defineProperty(bytes, 'slice', { value: () => bytes, enumerable: false });
    let db;
    try {
      db = new SQL.Database(bytes);
      db.exec('SELECT count(*) FROM sqlite_master');
    } catch (err) {
      if (db) db.close();
      throw new Error('data.db in the archive cannot be opened as a SQLite database: ' + (err && err.message));
    }
    try {
      const check = db.exec('PRAGMA quick_check');
      answer = String(check[0] && check[0].values[0] && check[0].values[0][0]) === 'ok' ? null : 'data.db in the archive is damaged';
    } finally {
      db.close();
    }
  } catch (err) {
    answer = String((err && err.message) || err);
  }
  parentPort.postMessage(answer);
})();
`;

function quickCheckInWorker(bytes: Uint8Array): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CHECK_SOURCE, { eval: true, workerData: { bytes, sqlJs: createRequire(import.meta.url).resolve('sql.js') } });
    let answered = false;
    worker.once('message', (answer: string | null) => {
      answered = true;
      resolve(answer);
      void worker.terminate();
    });
    worker.once('error', (err) => reject(new Error(`the check of data.db in the archive failed: ${err.message}`)));
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the check of data.db in the archive stopped (its worker exited with code ${code})`));
    });
  });
}

function settled<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (err) {
    return Promise.reject(err as Error);
  }
}
