// Rebuilds the database from the data folder: load the snapshot, replay every intact journal entry in
// order, cut a torn or corrupt tail off the last segment, and reopen that segment for appends. Used on
// open and after a failed append (so the memory drops what the disk does not hold).
import { open, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { decodeStatements } from './codec.js';
import { replaceRandom } from './determinism.js';
import { asError, readWhole, syncDir, writeFully } from '../durable-files.js';
import { createSegment, JournalWriter } from './journal.js';
import type { ActiveSegment, JournalCounters, JournalOptions } from './journal.js';
import { decodeHeader, FRAME_OVERHEAD, HEADER_SIZE, listSegments, nonZeroEnd, sameSnapshot, scanEntries, snapshotId, snapshotIdInSlices } from './journal-format.js';
import type { ScannedEntry, SegmentFile, SnapshotId } from './journal-format.js';
import { readSnapshot, removeTempSnapshot, snapshotPath, withCapacity } from './snapshot.js';
import { emptyDatabase } from './export.js';
import { runStatement, StatementCache } from './statements.js';
import { LoopSlice } from '../loop-slice.js';

export interface LoadedState {
  db: Database;
  journal: JournalWriter;
  /** Entries replayed on top of the snapshot (all of them are still only in the journal). */
  replayed: number;
}

interface ReadSegment extends SegmentFile {
  entries: ScannedEntry[];
  /** End of the intact entries. */
  end: number;
  /** End of the bytes that are not zeros: above `end` when the tail is torn or damaged (scanEntries). */
  dataEnd: number;
  size: number;
}

/** Entries replayed per transaction: far faster than one each, and bounded in memory. */
const REPLAY_BATCH = 2048;

export async function loadState(
  SQL: SqlJsStatic,
  dir: string,
  counters: JournalCounters,
  onFailure: (error: Error) => void,
  log: (line: string) => void = () => undefined,
  capacity = 0,
  journalOptions: JournalOptions = {},
): Promise<LoadedState> {
  await removeTempSnapshot(dir);
  const bytes = await readSnapshot(dir, capacity);
  const db = openDatabase(SQL, bytes, snapshotPath(dir), capacity);
  try {
    // in slices: a restore loads the database while the server answers others
    const base = bytes === null ? snapshotId(null) : await snapshotIdInSlices(bytes);
    const { chain, nextSeq } = await readChain(dir, base);
    const replayed = await replay(db, chain);
    const journal = new JournalWriter(dir, await openActive(dir, chain, nextSeq, base, log), counters, onFailure, journalOptions);
    return { db, journal, replayed };
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * The database as the disk holds it, writing nothing: for a store whose folder refuses writes, so that
 * memory drops what the disk refused while reads go on. Entries of segment `durable.seq` past byte
 * `durable.size` (what a failed append may have left) are not replayed.
 */
export async function loadReadOnly(SQL: SqlJsStatic, dir: string, durable: { seq: number; size: number }, capacity = 0): Promise<{ db: Database; replayed: number }> {
  const bytes = await readSnapshot(dir, capacity);
  const db = openDatabase(SQL, bytes, snapshotPath(dir), capacity);
  try {
    const { chain } = await readChain(dir, snapshotId(bytes), false);
    const capped = chain.map((segment) => segment.seq !== durable.seq ? segment
      : { ...segment, entries: segment.entries.filter((e) => e.offset + FRAME_OVERHEAD + e.payload.length <= durable.size) });
    return { db, replayed: await replay(db, capped) };
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Opens a database from snapshot bytes (or an empty one); `path` names the file in errors. With a
 * `capacity`, an empty database starts from an empty file with that room (snapshot.ts `withCapacity`;
 * snapshot bytes get theirs from `readSnapshot`).
 */
export function openDatabase(SQL: SqlJsStatic, bytes: Buffer | null, path: string, capacity = 0): Database {
  const initial = bytes ?? (capacity > 0 ? roomyEmptyDatabase(SQL, capacity) : null);
  const db = initial === null ? new SQL.Database() : new SQL.Database(initial);
  try {
    // sql.js opens lazily: read the schema now so a damaged file fails here, naming the file.
    db.exec('SELECT count(*) FROM sqlite_master');
  } catch (err) {
    db.close();
    throw new Error(`${path} cannot be opened as a SQLite database: ${asError(err).message}`);
  }
  db.run('PRAGMA foreign_keys = OFF');
  replaceRandom(SQL, db);
  for (const pragma of MEMORY_PRAGMAS) db.run(pragma);
  db.run(PAGE_CACHE_PRAGMA);
  return db;
}

/** An empty database's one page, SQLite's own, over storage of `capacity` bytes. */
function roomyEmptyDatabase(SQL: SqlJsStatic, capacity: number): Buffer {
  const page = emptyDatabase(SQL, DEFAULT_PAGE_SIZE);
  const bytes = withCapacity(page.length, capacity);
  bytes.set(page);
  return bytes;
}

/** SQLite's default page size, that of every database Deskbase creates. */
const DEFAULT_PAGE_SIZE = 4096;

/**
 * The database file lives in sql.js's in-memory file system and only this connection uses it, so
 * SQLite's file locking and on-"disk" rollback journal buy nothing (durability is our journal's job):
 * - an exclusive lock kept for good skips the hot-journal check and the re-read of the file header
 *   before each statement (a primary-key read costs about a third as much);
 * - the rollback journal kept in memory (ROLLBACK still works) makes a one-row write transaction
 *   several times cheaper;
 * - a page cache of 16 MiB (SQLite's default is 2 MiB) keeps the pages point reads and lists walk (the
 *   indexes' upper levels, recent rows). Not more: every page it holds is a second copy of a page the
 *   in-memory file already holds, in sql.js's WebAssembly memory, which never shrinks. At 128 MiB a
 *   full scan of 100k posts (an 86 MB file) filled it with the whole table: +88 MB of RSS for good, for
 *   a scan 24 → 16 ms faster (bench/memory.ts, docs/architecture.md "Measurements behind the code").
 * None of these are stored in the snapshot: it stays a plain SQLite file.
 */
const MEMORY_PRAGMAS = ['PRAGMA locking_mode = EXCLUSIVE', 'PRAGMA journal_mode = MEMORY'];

/** The page cache (see MEMORY_PRAGMAS): 16 MiB. */
export const PAGE_CACHE_PRAGMA = 'PRAGMA cache_size = -16384';
/**
 * The page cache of a long write transaction (engine.ts): 2 MiB, so that its changed pages are
 * written to sql.js's file as the statements run, in the stretches between which the work lets the
 * event loop turn, instead of all at COMMIT (a 100k-row import's COMMIT wrote 70 MB in one stretch
 * of 1-3 s, most of it the in-memory file growing and copying itself).
 */
export const LONG_WRITE_CACHE_PRAGMA = 'PRAGMA cache_size = -2048';

/**
 * The segments to replay: from the first one that continues the snapshot on disk to the last. Older
 * segments are already in the snapshot and are deleted. A last segment whose header is unreadable and
 * that holds nothing but zeros after it (none, or room: an entry is never all zeros) was
 * torn while it was created (entries are appended only once the header is durable), held no entries
 * and is deleted too; one with bytes that are not zeros after it held acknowledged writes and its header was
 * damaged since, so the start is refused, naming the file, and the file is left as it is: deleting it
 * silently dropped every write it held (the first superuser's too, which reopened setup to anyone).
 */
async function readChain(dir: string, base: SnapshotId, cleanUp = true): Promise<{ chain: ReadSegment[]; nextSeq: number }> {
  const segments = await listSegments(dir);
  const nextSeq = (segments.at(-1)?.seq ?? 0) + 1;
  const read: (ReadSegment & { base: SnapshotId | null })[] = [];
  for (const segment of segments) {
    const file = (await readWhole(segment.path)) ?? Buffer.alloc(0);
    const base = decodeHeader(file);
    const scan = base === null ? { entries: [], end: 0, dataEnd: nonZeroEnd(file) } : scanEntries(file);
    read.push({ ...segment, ...scan, size: file.length, base });
  }
  const last = read.at(-1);
  if (last !== undefined && last.base === null) {
    if (last.dataEnd > HEADER_SIZE) throw damagedHeader(last.path, last.size);
    if (cleanUp) await unlink(last.path);
    read.pop();
  }
  const start = read.findIndex((segment) => segment.base !== null && sameSnapshot(segment.base, base));
  if (read.length > 0 && start === -1) {
    throw new Error(
      `the journal in ${dir} does not continue from ${snapshotPath(dir)} (was the snapshot replaced?); ` +
        'refusing to open the data folder',
    );
  }
  const chain = read.slice(start);
  chain.forEach((segment, i) => {
    if (segment.base === null) throw damagedHeader(segment.path, segment.size);
    if (i > 0 && segment.seq !== chain[i - 1].seq + 1) {
      throw new Error(`journal segment ${chain[i - 1].seq + 1} is missing in ${dir}`);
    }
    if (i < chain.length - 1 && segment.dataEnd !== segment.end) {
      throw new Error(`${segment.path}: damaged journal entry at byte ${segment.end} (not at the end of the journal)`);
    }
  });
  if (cleanUp) for (const covered of read.slice(0, start)) await unlink(covered.path);
  return { chain, nextSeq };
}

function damagedHeader(path: string, size: number): Error {
  return new Error(
    `${path}: damaged journal segment header, with ${size - HEADER_SIZE} bytes of writes after it; refusing to open ` +
      'the data folder rather than drop them. Keep a copy of the folder, then move that file out of it to open ' +
      'the data without those writes.',
  );
}

/**
 * Applies the chain's entries, REPLAY_BATCH to a transaction, in slices of the loop (loop-slice.ts): a
 * reload after a failed journal write replays up to a checkpoint's worth of journal (64 MiB: about a
 * second of CPU) while the server answers others. `db` is nobody else's until this returns.
 */
async function replay(db: Database, chain: ReadSegment[]): Promise<number> {
  const cache = new StatementCache(db);
  const slice = new LoopSlice();
  let count = 0;
  try {
    for (const segment of chain) {
      for (let i = 0; i < segment.entries.length; i += REPLAY_BATCH) {
        const batch = segment.entries.slice(i, i + REPLAY_BATCH);
        db.run('BEGIN');
        try {
          for (const entry of batch) {
            applyEntry(cache, segment, entry);
            if (slice.due) {
              db.run('COMMIT');
              await slice.pause();
              db.run('BEGIN');
            }
          }
          db.run('COMMIT');
        } catch (err) {
          db.run('ROLLBACK');
          throw err;
        }
        count += batch.length;
      }
    }
  } finally {
    cache.clear();
  }
  return count;
}

function applyEntry(cache: StatementCache, segment: ReadSegment, entry: ScannedEntry): void {
  try {
    for (const { sql, params } of decodeStatements(entry.payload)) runStatement(cache, sql, params);
  } catch (err) {
    // Replaying what once committed cannot fail unless something is badly wrong: stop rather than diverge.
    throw new Error(`cannot replay the journal entry at byte ${entry.offset} of ${segment.path}: ${asError(err).message}`);
  }
}

/** Cuts a segment back to `size` bytes, durably: a failed append may have left bytes past its last entry. */
export async function cutSegment(path: string, size: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    if ((await handle.stat()).size > size) {
      await handle.truncate(size);
      await handle.datasync();
    }
  } finally {
    await handle.close();
  }
}

/**
 * Opens the last segment for appends, or starts the first one. Zeros after the last intact entry are
 * the journal's preallocated room (journal.ts), a clean end: kept, the appends continue into them. Bytes
 * after it that are not all zeros (a write torn by a crash, a hole then a later group's write, or
 * damage) are first copied, up to the last byte that is not zero, to `journal.<n>.log.damaged-<time>`
 * beside it, durably, and only then cut off with the room: nothing on disk is destroyed, and the log
 * says what was kept where.
 */
async function openActive(dir: string, chain: ReadSegment[], nextSeq: number, base: SnapshotId, log: (line: string) => void): Promise<ActiveSegment> {
  const last = chain.at(-1);
  if (last === undefined) return { handle: await createSegment(dir, nextSeq, base), seq: nextSeq, size: HEADER_SIZE };
  const handle = await open(last.path, 'r+');
  try {
    if (last.dataEnd === last.end) return { handle, seq: last.seq, size: last.end, allocated: last.size };
    const aside = await keepTail(handle, last);
    await handle.truncate(last.end);
    await handle.datasync();
    log(
      `journal: ${basename(last.path)} held ${last.dataEnd - last.end} bytes after its last intact entry (byte ${last.end}; ` +
        `${last.entries.length} entries replayed): moved them to ${aside} and continued from there`,
    );
  } catch (err) {
    await handle.close();
    throw err;
  }
  return { handle, seq: last.seq, size: last.end };
}

/**
 * Copies a segment's bytes past its intact entries, up to the zeros after them, to a new file beside
 * it, synced with its folder entry.
 */
async function keepTail(handle: FileHandle, segment: ReadSegment): Promise<string> {
  const tail = Buffer.alloc(segment.dataEnd - segment.end);
  const { bytesRead } = await handle.read(tail, 0, tail.length, segment.end);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const path = `${segment.path}.damaged-${stamp}`;
  const out = await open(path, 'wx');
  try {
    await writeFully(out, tail.subarray(0, bytesRead), 0);
    await out.datasync();
  } finally {
    await out.close();
  }
  await syncDir(dirname(path));
  return basename(path);
}
