// The team server's home for files: rows of the database every node shares (docs/architecture.md,
// "Files on the team server"). `_files` holds one row per stored file (an original, or a thumbnail of
// one: `thumb` is its size, '' for the original), `_file_chunks` its bytes in CHUNK-sized bytea rows
// (store-postgres/schema.ts makes both). So a file uploaded through one node is served by any other,
// streaming replication carries it to the replicas and pg_dump backs it up with the records.
//
// The life of an upload, as on disk but with the database's commit as the point of no return:
//   receive: streamed to this node's own temporary folder (upload-temp/node-<host>-<pid>-<random>/),
//     under its field's maxSize, as on the desktop;
//   place (before the write's transaction): a `_files` row marked `staged` (a token of this write, and
//     the database's time) and its chunks, each chunk its own short transaction: a large upload never
//     holds the node's write turn or the whole file in memory;
//   adopt (inside the write's transaction): `staged` cleared, so the file becomes the record's in the
//     same commit as the record's row; a write whose staged row is gone fails instead of naming it;
//   unplace (rolled back): the staged row goes (its chunks with it, ON DELETE CASCADE);
//   drop: adopted rows of names no durable record holds any more.
// The start-up sweep never touches another node's work in flight: staged rows go only once older than
// STAGED_LEASE_MS (no write takes that long between place and commit; one that did would fail at its
// adopt), only adopted rows listed before the records are read are checked against them (a name once
// released is never named again), and only this host's temporary folders of processes that are gone.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { TEMP_DIR, isSafeSegment } from './paths.js';
import type { StagedFile } from './staged.js';
import type { FileStorage, FileTx, NamedFiles, PlaceTx, StoredFile, SweepResult } from './storage.js';
import { UploadArea } from './storage.js';

/**
 * Bytes per `_file_chunks` row: what one statement carries and what a reader holds at once (twice over
 * while it is hex text on the wire). 1 MiB: a 50 MiB upload is 50 short transactions.
 */
export const CHUNK = 1024 * 1024;
/** A staged file older than this is left over from a write that will never commit (a node that died). */
export const STAGED_LEASE_MS = 60 * 60 * 1000;
/** How often a node placing files also removes the staged files past their lease (crashed nodes' leftovers). */
const STAGED_SWEEP_EVERY_MS = 10 * 60 * 1000;
/** Adopted files read per step of the sweep. */
const SWEEP_PAGE = 1000;

/**
 * What this storage needs of the store (the PostgreSQL store is one; typed here so that the files layer
 * stays below the store): reads, and short write transactions. Statements are PostgreSQL's, with `?`.
 */
export interface FileDb {
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  write<T>(fn: (tx: FileTx & { get<R>(sql: string, params?: readonly unknown[]): Promise<R | undefined> }) => Promise<T>): Promise<T>;
}

interface FileRow {
  id: number;
  size: number;
  created: number;
}

/**
 * Where a node given no folder keeps its temporary uploads: one place per host, so that a node starting
 * sweeps what crashed ones left there (each node only its own subfolder, removed when it exits).
 */
export const TEAM_TEMP_BASE = join(tmpdir(), 'deskbase-team');

const ownTempDirs = new Set<string>();
let exitHooked = false;

/** Removes this process's temporary upload folders when it exits (one hook for all storages). */
function removeAtExit(dir: string): void {
  ownTempDirs.add(dir);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const d of ownTempDirs) rmSync(d, { recursive: true, force: true });
  });
}

/** The database's clock in ms (nodes' clocks may differ; leases are judged by one clock). */
const DB_NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export class DatabaseFileStorage extends UploadArea implements FileStorage {
  readonly kind = 'database' as const;
  /** upload-temp/ of this node's folder, where every node keeps its own subfolder. */
  private readonly tempRoot: string;
  private readonly host = hostname().replace(/[^A-Za-z0-9.]/g, '_');
  private stagedSweptAt = Date.now();

  /** `baseDir`: this node's folder (--dir, or TEAM_TEMP_BASE); only its temporary uploads live there. */
  constructor(private readonly db: FileDb, baseDir: string, report: (error: unknown) => void) {
    const tempRoot = join(baseDir, TEMP_DIR);
    super(join(tempRoot, `node-${hostname().replace(/[^A-Za-z0-9.]/g, '_')}-${process.pid}-${randomBytes(6).toString('hex')}`), report);
    this.tempRoot = tempRoot;
    removeAtExit(this.tempDir);
  }

  async place(collectionId: string, recordId: string, files: readonly StagedFile[], inTx?: PlaceTx): Promise<string[]> {
    if (files.length === 0) return [];
    if (!isSafeSegment(collectionId) || !isSafeSegment(recordId)) throw new Error('unsafe storage path');
    if (!inTx && Date.now() - this.stagedSweptAt > STAGED_SWEEP_EVERY_MS) {
      // a long-running node hears of crashed nodes' staged files without waiting for a start-up sweep
      this.stagedSweptAt = Date.now();
      await this.removeExpiredStaged();
    }
    const token = randomBytes(12).toString('hex');
    const placed: string[] = [];
    try {
      for (const f of files) {
        if (!isSafeSegment(f.name)) throw new Error('unsafe file name');
        // inside a write's transaction (a write with hooks): its rows and chunks go in it, the write turn is its
        const write = inTx ? <T>(fn: (tx: PlaceTx) => Promise<T>) => fn(inTx) : <T>(fn: (tx: PlaceTx) => Promise<T>) => this.db.write(fn);
        const row = await write((tx) =>
          tx.get<{ id: number }>(
            `INSERT INTO "_files" ("collectionId", "recordId", "name", "thumb", "size", "staged", "stagedAt") VALUES (?, ?, ?, '', ?, ?, ${DB_NOW_MS}) RETURNING "id"`,
            [collectionId, recordId, f.name, f.size, token],
          ),
        );
        placed.push(`${row!.id}:${token}`);
        await this.copyIn(row!.id, f.tempPath, inTx);
        await rm(f.tempPath, { force: true });
      }
    } catch (err) {
      // (placed inside a write's transaction, the rows go with its rollback)
      if (!inTx) await this.unplace(placed);
      throw err;
    }
    return placed;
  }

  /** A file's bytes into its chunks, one chunk per transaction, one chunk in memory. */
  private async copyIn(fileId: number, path: string, inTx?: PlaceTx): Promise<void> {
    const handle = await open(path, 'r');
    try {
      for (let seq = 0; ; seq++) {
        const buf = Buffer.allocUnsafe(CHUNK);
        let filled = 0;
        while (filled < CHUNK) {
          const { bytesRead } = await handle.read(buf, filled, CHUNK - filled, seq * CHUNK + filled);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        if (filled === 0 && seq > 0) break;
        if (inTx) {
          // (no SET LOCAL here: it would make the record's own commit asynchronous)
          await inTx.run('INSERT INTO "_file_chunks" ("file", "seq", "data") VALUES (?, ?, ?)', [fileId, seq, buf.subarray(0, filled)]);
          if (filled < CHUNK) break;
          continue;
        }
        await this.db.write(async (tx) => {
          // not waited for on its own: the write that adopts the file commits synchronously later,
          // and PostgreSQL's log is flushed (and sent to synchronous replicas) in order, these rows first
          await tx.run('SET LOCAL synchronous_commit = off');
          await tx.run('INSERT INTO "_file_chunks" ("file", "seq", "data") VALUES (?, ?, ?)', [fileId, seq, buf.subarray(0, filled)]);
        });
        if (filled < CHUNK) break;
      }
    } finally {
      await handle.close();
    }
  }

  async adopt(tx: FileTx, placed: readonly string[]): Promise<void> {
    for (const key of placed) {
      const [id, token] = key.split(':');
      const { changes } = await tx.run('UPDATE "_files" SET "staged" = NULL, "stagedAt" = NULL WHERE "id" = ? AND "staged" = ?', [Number(id), token]);
      if (changes !== 1) throw new Error('an upload this write placed was removed before the write committed (it waited past the staged lease)');
    }
  }

  /** Adopted in the transaction: nothing is held in memory. */
  settle(): void {}

  async unplace(placed: readonly string[]): Promise<void> {
    if (placed.length === 0) return;
    await this.db.write(async (tx) => {
      for (const key of placed) {
        const [id, token] = key.split(':');
        await tx.run('DELETE FROM "_files" WHERE "id" = ? AND "staged" = ?', [Number(id), token]);
      }
    });
  }

  drop(collectionId: string, recordId: string, names: readonly string[]): void {
    if (names.length === 0) return;
    this.later(async () => {
      await this.db.write(async (tx) => {
        for (const name of names) {
          await tx.run('DELETE FROM "_files" WHERE "collectionId" = ? AND "recordId" = ? AND "name" = ? AND "staged" IS NULL', [collectionId, recordId, name]);
        }
      });
    });
  }

  dropCollection(collectionId: string): void {
    this.later(async () => {
      await this.db.write((tx) => tx.run('DELETE FROM "_files" WHERE "collectionId" = ? AND "staged" IS NULL', [collectionId]));
    });
  }

  private async find(collectionId: string, recordId: string, name: string, thumb: string): Promise<StoredFile | null> {
    const row = await this.db.get<FileRow>(
      'SELECT "id", "size", "created" FROM "_files" WHERE "collectionId" = ? AND "recordId" = ? AND "name" = ? AND "thumb" = ? AND "staged" IS NULL',
      [collectionId, recordId, name, thumb],
    );
    return row === undefined ? null : this.stored(row);
  }

  open(collectionId: string, recordId: string, name: string): Promise<StoredFile | null> {
    return this.find(collectionId, recordId, name, '');
  }

  /** One chunk's bytes, or an empty buffer when there is none. */
  private async chunk(fileId: number, seq: number): Promise<Buffer> {
    const row = await this.db.get<{ data: Buffer }>('SELECT "data" FROM "_file_chunks" WHERE "file" = ? AND "seq" = ?', [fileId, seq]);
    return row?.data ?? Buffer.alloc(0);
  }

  private stored(row: FileRow): StoredFile {
    const { id, size } = row;
    return {
      size,
      mtime: new Date(row.created),
      // only the bytes asked for: an EXTERNAL value's substring reads only the TOAST pieces it covers
      head: async (bytes: number) => {
        const row = await this.db.get<{ data: Buffer }>('SELECT substring("data" FROM 1 FOR ?) AS "data" FROM "_file_chunks" WHERE "file" = ? AND "seq" = 0', [bytes, id]);
        return row?.data ?? Buffer.alloc(0);
      },
      // chunk by chunk as the reader asks (Readable.from pulls one at a time), the next one read ahead
      stream: (start: number, end: number) => {
        const read = (seq: number) => {
          const pending = this.chunk(id, seq);
          pending.catch(() => undefined); // heard where it is awaited
          return pending;
        };
        return Readable.from(
          (async function* () {
            const last = Math.floor(end / CHUNK);
            let next = read(Math.floor(start / CHUNK));
            for (let seq = Math.floor(start / CHUNK); seq <= last; seq++) {
              const data = await next;
              if (seq < last) next = read(seq + 1);
              if (data.length === 0) throw new Error('a stored file was removed while it was being read');
              const from = Math.max(start - seq * CHUNK, 0);
              const to = Math.min(end - seq * CHUNK + 1, data.length);
              yield data.subarray(from, to);
            }
          })(),
          { objectMode: false },
        );
      },
      close: () => Promise.resolve(),
    };
  }

  /**
   * Made once for all nodes: the original is copied to this node's temporary folder for sharp, the
   * thumbnail stored beside it (a node that made the same one meanwhile wins; both are the same).
   */
  async thumbnail(collectionId: string, recordId: string, name: string, size: string, mime: string): Promise<StoredFile> {
    const have = await this.find(collectionId, recordId, name, size);
    if (have) return have;
    await this.thumbs.once(`${collectionId}/${recordId}/${name}/${size}`, async () => {
      const original = await this.open(collectionId, recordId, name);
      if (original === null) throw new Error('the original is gone');
      await mkdir(this.tempDir, { recursive: true });
      const temp = join(this.tempDir, `thumb-${randomBytes(8).toString('hex')}`);
      try {
        const handle = await open(temp, 'wx');
        try {
          for await (const part of original.stream(0, original.size - 1) as AsyncIterable<Buffer>) await handle.write(part);
        } finally {
          await handle.close();
        }
        const bytes = await this.thumbs.render(temp, size, mime);
        await this.db.write(async (tx) => {
          const row = await tx.get<{ id: number }>(
            `INSERT INTO "_files" ("collectionId", "recordId", "name", "thumb", "size")
             SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM "_files" WHERE "collectionId" = ? AND "recordId" = ? AND "name" = ? AND "thumb" = '' AND "staged" IS NULL)
             ON CONFLICT DO NOTHING RETURNING "id"`,
            [collectionId, recordId, name, size, bytes.length, collectionId, recordId, name],
          );
          if (row === undefined) return;
          for (let seq = 0; seq * CHUNK < bytes.length || seq === 0; seq++) {
            await tx.run('INSERT INTO "_file_chunks" ("file", "seq", "data") VALUES (?, ?, ?)', [row.id, seq, bytes.subarray(seq * CHUNK, (seq + 1) * CHUNK)]);
          }
        });
      } finally {
        await rm(temp, { force: true });
      }
    });
    const made = await this.find(collectionId, recordId, name, size);
    if (made === null) throw new Error('the thumbnail could not be stored');
    return made;
  }

  /** Removes the staged files past their lease (by the database's clock); returns how many. */
  private async removeExpiredStaged(): Promise<number> {
    const gone = await this.db.write((tx) =>
      tx.get<{ n: number }>(`WITH gone AS (DELETE FROM "_files" WHERE "staged" IS NOT NULL AND "stagedAt" < ${DB_NOW_MS} - ? RETURNING 1) SELECT count(*) AS "n" FROM gone`, [STAGED_LEASE_MS]),
    );
    return gone?.n ?? 0;
  }

  async sweep(named: NamedFiles): Promise<SweepResult> {
    const removed: string[] = [];
    // 1. temporary uploads: this node's, and those of this host's processes that are gone
    for (const entry of await readdir(this.tempRoot).catch(() => [] as string[])) {
      const m = /^node-(.+)-(\d+)-[0-9a-f]+$/.exec(entry);
      if (m === null || m[1] !== this.host) continue;
      const path = join(this.tempRoot, entry);
      if (path !== this.tempDir && processAlive(Number(m[2]))) continue;
      removed.push(path);
      await rm(path, { recursive: true, force: true });
    }
    // 2. files staged by writes that can no longer commit
    const stale = await this.removeExpiredStaged();
    for (let i = 0; i < stale; i++) removed.push('(staged)');
    // 3. adopted files no record names: listed first, then checked against the records
    let after = 0;
    for (;;) {
      const page = await this.db.all<{ id: number; collectionId: string; recordId: string; name: string; thumb: string }>(
        'SELECT "id", "collectionId", "recordId", "name", "thumb" FROM "_files" WHERE "staged" IS NULL AND "id" > ? ORDER BY "id" LIMIT ?',
        [after, SWEEP_PAGE],
      );
      if (page.length === 0) break;
      after = page[page.length - 1].id;
      const byRecord = new Map<string, typeof page>();
      for (const f of page) {
        const key = `${f.collectionId}\u0000${f.recordId}`;
        byRecord.set(key, [...(byRecord.get(key) ?? []), f]);
      }
      const doomed: typeof page = [];
      for (const files of byRecord.values()) {
        const { collectionId, recordId } = files[0];
        const names = await named(collectionId, recordId);
        if (names === undefined) continue;
        for (const f of files) if (names === null || !names.has(f.name)) doomed.push(f);
      }
      if (doomed.length > 0) {
        await this.db.write(async (tx) => {
          for (const f of doomed) await tx.run('DELETE FROM "_files" WHERE "id" = ?', [f.id]);
        });
        for (const f of doomed) removed.push(`${f.collectionId}/${f.recordId}/${f.thumb === '' ? '' : `${f.thumb}_`}${f.name}`);
      }
    }
    return { removed };
  }
}
