// Backups and restores of the whole data: `data.db` and `storage/` in one zip.
//
// A backup is taken without stopping writes: the database bytes and the list of files its records
// name are read in the same turn of the store (`store.backup(alongside)`: no write commits between them, so they agree), and deletions wait while the zip
// streams (files are immutable once named, and only deletions could take one away).
//
// A restore receives an archive to a temporary file, extracts and checks it (files/archive.ts: paths,
// links, sizes; store/restore.ts: a healthy database with the system tables; here: what start-up will
// load, through the registry's own loading, every table and column its collections name, record ids
// of the id pattern, no auth id in two auth collections, stored file names that are plain path
// segments), reports the files its records name that it lacks, then swaps it in through the store
// (writes wait; crash-safe from the commit marker on) after keeping the previous data as
// `backups/before-restore-<time>.zip` beside it. A restore that fails after the swap puts that
// previous data back the same way before it answers.
import type { CoreEnv } from './env.js';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, badRequest, notFound, tooLarge } from '../errors.js';
import { ARCHIVE_DB, ArchiveError, DEFAULT_ARCHIVE_LIMITS, extractArchive, writeArchive } from '../files/archive.js';
import { isSafeSegment } from '../files/paths.js';
import { DiskFileStorage } from '../files/storage.js';
import { isDiskError, readWhole, replaceDurably, syncDir } from '../durable-files.js';
import { DEFAULT_MAX_DATABASE_BYTES, type ReadDb } from '../store/db.js';
import { commitRestore, finishRestore, RESTORE_STAGING } from '../store/restore.js';
import { ident } from '../filter/sql.js';
import { Registry } from './collection-registry.js';
import { storedNames } from './file-cleanup.js';
import { mismatchedIdSql } from './ids.js';
import { sharedAuthId } from './writes/auth-record.js';
import { SUPERUSERS_ID, type Collection, type FileField, type Row } from '../model/types.js';

export const BACKUPS_DIR = 'backups';
/** The largest archive a restore accepts (what the upload may hold on disk while it is checked). */
export const MAX_RESTORE_BYTES = 64 * 1024 ** 3;

export interface RestoreResult {
  /** Files the restored records name that the archive did not hold (`<collectionId>/<recordId>/<name>`). */
  missingFiles: string[];
  /** Where the previous data was kept, relative to the data folder. */
  previous: string;
}

/**
 * Every file the records of `db` name, as `<collectionId>/<recordId>/<name>`; collections as `db`
 * defines them. A name or id that is not one plain path segment is never a path: it goes to `unsafe`
 * when given (a restore refuses it), else it is left out (a backup of older data stays whole).
 */
export async function namedFiles(db: ReadDb, collections: Collection[], unsafe?: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const c of collections) {
    const fields = c.fields.filter((f): f is FileField => f.type === 'file');
    if (fields.length === 0) continue;
    const rows = await db.all<Row>(`SELECT "id", ${fields.map((f) => ident(f.name)).join(', ')} FROM ${ident(c.name)}`);
    for (const row of rows) {
      for (const f of fields) {
        for (const name of storedNames(f, row)) {
          const rel = `${c.id}/${String(row.id)}/${name}`;
          if ([c.id, String(row.id), name].every(isSafeSegment)) out.push(rel);
          else unsafe?.push(rel);
        }
      }
    }
  }
  return out;
}

/** The collections as `db` defines them, read by the registry's own loading (the one of start-up). */
async function collectionsOf(db: ReadDb): Promise<Collection[]> {
  const registry = new Registry();
  await registry.load(db);
  return registry.all();
}

/**
 * What start-up and every later request will read of a candidate database, checked before it is
 * swapped in: each collection's definition (the registry's loading), its table and columns, record ids
 * of the id pattern (ids.ts), stored file names that are plain path segments (files/paths.ts). Throws
 * with the first problem; returns the files its records name. A turn of the loop between tables.
 */
async function checkCandidate(db: ReadDb): Promise<{ collections: Collection[]; files: string[] }> {
  const collections = await collectionsOf(db);
  // start-up would create it again, over the table the archive may still hold
  if (collections.find((c) => c.id === SUPERUSERS_ID)?.type !== 'auth') throw new Error('it has no _superusers collection');
  for (const c of collections) {
    const columns = new Set((await db.all<{ name: string }>('SELECT name FROM pragma_table_info(?)', [c.name])).map((r) => r.name));
    if (columns.size === 0) throw new Error(`collection "${c.name}" has no table`);
    const missing = c.fields.filter((f) => !columns.has(f.name)).map((f) => f.name);
    if (missing.length > 0) throw new Error(`collection "${c.name}" has no column for ${missing.join(', ')}`);
    const bad = await db.get<{ id: unknown }>(`SELECT "id" AS id FROM ${ident(c.name)} WHERE ${mismatchedIdSql('"id"')} LIMIT 1`);
    if (bad !== undefined) throw new Error(`collection "${c.name}" has a record whose id ${JSON.stringify(String(bad.id).slice(0, 40))} is not 15 characters from a-z0-9`);
    await nextTurn(); // one table's scan per turn of the loop: a large archive does not hold it in one stretch
  }
  // Deskbase makes no triggers: one in an archive would run its own SQL on every later write (copy a
  // superuser's password hash somewhere readable, or set it to a known one)
  const trigger = await db.get<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'trigger' LIMIT 1`);
  if (trigger !== undefined) throw new Error(`it holds a trigger (${JSON.stringify(trigger.name.slice(0, 60))}); Deskbase makes none`);
  const shared = await sharedAuthId(db, collections);
  if (shared !== null) throw new Error(`the auth collections "${shared.a}" and "${shared.b}" both have a record with the id ${JSON.stringify(shared.id)} (auth ids are unique across auth collections)`);
  const unsafe: string[] = [];
  const files = await namedFiles(db, collections, unsafe);
  if (unsafe.length > 0) throw new Error(`a record names a file that is not a plain file name (${JSON.stringify(unsafe[0].slice(0, 120))})`);
  return { collections, files };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

/** One zip of the backups folder, as PocketBase's GET /api/backups lists it. */
export interface BackupFile {
  key: string;
  size: number;
  /** When it was written, `YYYY-MM-DD hh:mm:ss.sssZ` like PocketBase's dates. */
  modified: string;
}

/**
 * A backup's name (its key): a plain file name ending in .zip, nothing that could leave the folder.
 * PocketBase asks `^[a-z0-9_-].+\.zip$`; Deskbase's own names (`before-restore-2026-…Z.zip`) have capitals.
 */
export const BACKUP_KEY = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,146}\.zip$/;

const pbDate = (d: Date) => d.toISOString().replace('T', ' ');

/** `report` hears a backup cut midway (the client only sees its download end early). */
export function createBackups(env: Pick<CoreEnv, 'store' | 'storage' | 'report'>, afterRestore: () => Promise<void>) {
  const { store, storage, report } = env;
  let restoring = false;
  /** The zip of everything as it is now; deletions wait until it has streamed (or the reader left). */
  async function snapshot(): Promise<Readable> {
    const release = storage.hold();
    try {
      const { bytes, alongside: files } = await store.backup(async (db) => namedFiles(db, await collectionsOf(db)));
      // the desktop's backup zip: only its store gets here (a team server's refuses backup() first)
      if (!(storage instanceof DiskFileStorage)) throw new Error('a backup zip holds files kept on disk');
      const stream = await writeArchive(bytes, storage.root, files);
      stream.once('close', release);
      stream.once('end', release);
      stream.once('error', release);
      stream.once('error', (err) => report(new Error(`A backup was cut midway: ${err.message}`)));
      return stream;
    } catch (err) {
      release();
      throw err;
    }
  }

  async function receive(source: Readable, declared: number, dir: string): Promise<string> {
    if (declared > MAX_RESTORE_BYTES) throw tooLarge();
    const staging = join(dir, RESTORE_STAGING);
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    const path = join(staging, `upload-${randomBytes(6).toString('hex')}.zip`);
    let size = 0;
    const bounded = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(size > MAX_RESTORE_BYTES ? tooLarge() : null, chunk);
      },
    });
    await pipeline(source, bounded, createWriteStream(path));
    return path;
  }

  /**
   * A team server's store makes no backup zip and restores none, folder or not: its own refusal
   * (naming pg_dump / pg_restore) answers first, before any talk of a data folder.
   */
  async function refuseUnlessZipStore(restore: boolean): Promise<void> {
    if (store.dialect !== 'postgres') return;
    await (restore ? store.replaceFromDisk(async () => {}) : store.backup());
  }

  /** The backups folder of this data folder; a server without one (in memory) has no backups to list. */
  function folder(): string {
    if (store.dir === null) throw badRequest('Backups need a data folder (this server keeps its data in memory).');
    return join(store.dir, BACKUPS_DIR);
  }
  /** The path of an existing backup; a key that is not a backup name is a 400, a missing one a 404. */
  async function existing(key: string): Promise<{ path: string; size: number }> {
    if (!BACKUP_KEY.test(key) || key.includes('..')) throw badRequest('Invalid backup name: a file name ending in .zip (letters, digits, _ - .).');
    const path = join(folder(), key);
    const s = await stat(path).catch(() => null);
    if (!s?.isFile()) throw notFound('There is no backup by this name.');
    return { path, size: s.size };
  }
  // one backup or restore at a time, as PocketBase ("another backup/restore process has already been started")
  let creating: string | null = null;
  let restoringKey: string | null = null;

  const api = {
    /** The zips in the backups folder (those a restore keeps included), newest first. */
    async list(): Promise<BackupFile[]> {
      if (store.dir === null) return [];
      const dir = folder();
      const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? [] : Promise.reject(err)));
      const out: BackupFile[] = [];
      for (const key of names) {
        if (!BACKUP_KEY.test(key) || key === creating) continue; // a zip still being written is not listed
        const s = await stat(join(dir, key)).catch(() => null);
        if (s?.isFile()) out.push({ key, size: s.size, modified: pbDate(s.mtime) });
      }
      return out.sort((a, b) => b.modified.localeCompare(a.modified) || a.key.localeCompare(b.key));
    },

    /** Writes a backup of everything now into the backups folder, as `name` or `deskbase-<time>.zip`. */
    async create(name?: string): Promise<BackupFile> {
      const key = name === undefined || name === '' ? `deskbase-${stamp()}.zip` : name;
      if (!BACKUP_KEY.test(key) || key.includes('..')) throw badRequest('Invalid backup name: a file name ending in .zip (letters, digits, _ - .).', { name: { code: 'validation_invalid_name', message: 'Must be a file name ending in .zip.' } });
      if (creating !== null || restoring) throw badRequest('Try again later: another backup or restore is running.');
      await refuseUnlessZipStore(false);
      const path = join(folder(), key);
      if (await stat(path).then(() => true, () => false)) throw badRequest('A backup by this name exists already.', { name: { code: 'validation_not_unique', message: 'A backup by this name exists already.' } });
      creating = key;
      try {
        await keep(await snapshot(), path);
      } finally {
        creating = null;
      }
      const s = await stat(path);
      return { key, size: s.size, modified: pbDate(s.mtime) };
    },

    /** A backup's bytes, for its download. */
    async read(key: string): Promise<{ stream: Readable; size: number }> {
      const { path, size } = await existing(key);
      return { stream: createReadStream(path), size };
    },

    async remove(key: string): Promise<void> {
      const { path } = await existing(key);
      if (key === restoringKey || key === creating) throw badRequest('The backup is being used and cannot be deleted now.');
      await unlink(path);
      await syncDir(folder());
    },

    /** Restores a backup of the folder, as a restore of an uploaded zip (the current data kept first). */
    async restoreKey(key: string): Promise<RestoreResult> {
      const { path, size } = await existing(key);
      if (creating !== null) throw badRequest('Try again later: another backup or restore is running.');
      restoringKey = key;
      try {
        return await api.restore(() => createReadStream(path), size);
      } finally {
        restoringKey = null;
      }
    },

    /** `deskbase-<time>.zip` and its stream. */
    async backup(): Promise<{ name: string; stream: Readable }> {
      return { name: `deskbase-${stamp()}.zip`, stream: await snapshot() };
    },

    async restore(source: () => Readable, declaredBytes: number): Promise<RestoreResult> {
      const dir = store.dir;
      await refuseUnlessZipStore(true);
      if (dir === null) throw badRequest('Restoring needs a data folder (this server keeps its data in memory).');
      // one restore at a time, as PocketBase: a second one would share (and wipe) the staging folder
      if (restoring) throw badRequest('Try again later: another restore is running.');
      restoring = true;
      const staging = join(dir, RESTORE_STAGING);
      let committed = false;
      try {
        const upload = await receive(source(), declaredBytes, dir);
        const missingFiles = await stage(upload, staging, { removeZip: true, check: true });
        const previous = join(BACKUPS_DIR, `before-restore-${stamp()}.zip`);
        try {
          await store.replaceFromDisk(async () => {
            await keep(await snapshot(), join(dir, previous));
            await commitRestore(dir);
            committed = true;
            await finishRestore(dir);
          });
          await afterRestore();
        } catch (err) {
          if (!committed) throw err;
          await putBack(dir, previous, err);
        }
        return { missingFiles: missingFiles.slice(0, 1000), previous };
      } finally {
        if (!committed) await rm(staging, { recursive: true, force: true });
        restoring = false;
      }
    },
  };

  /**
   * Extracts an archive into `staging`, checks what start-up will load of it (checkCandidate) and the
   * files it lacks, and moves data.db and storage/ to where the swap expects them. Returns the files
   * its records name that it does not hold.
   */
  async function stage(zip: string, staging: string, { removeZip, check: checked }: { removeZip: boolean; check: boolean }): Promise<string[]> {
    const into = join(staging, 'data');
    await rm(into, { recursive: true, force: true });
    try {
      // a backup of a database at the store's cap restores
      await extractArchive(zip, into, { limits: { ...DEFAULT_ARCHIVE_LIMITS, dbBytes: DEFAULT_MAX_DATABASE_BYTES } });
    } catch (err) {
      throw badRequest(`Invalid backup archive: ${err instanceof ArchiveError ? err.message : 'it cannot be read as a zip file'}.`);
    } finally {
      if (removeZip) await rm(zip, { force: true });
    }
    const missingFiles: string[] = [];
    let check: ReadDb & { close(): void };
    try {
      // read in pieces: a single readFile stops at 2 GiB, and the database may reach 4 GiB
      check = await store.inspect((await readWhole(join(into, ARCHIVE_DB))) ?? Buffer.alloc(0));
    } catch (err) {
      throw badRequest(`Invalid backup archive: ${err instanceof Error ? err.message : String(err)}.`);
    }
    try {
      for (const rel of checked ? (await checkCandidate(check)).files : []) {
        if (!(await access(join(into, 'storage', rel)).then(() => true, () => false))) missingFiles.push(rel);
      }
    } catch (err) {
      throw badRequest(`Invalid backup archive: ${err instanceof Error ? err.message : String(err)}.`);
    } finally {
      check.close();
    }
    // the staged data moves up to where the swap expects it
    await rename(join(into, ARCHIVE_DB), join(staging, ARCHIVE_DB));
    await rm(join(staging, 'storage'), { recursive: true, force: true });
    await mkdir(join(into, 'storage'), { recursive: true });
    await rename(join(into, 'storage'), join(staging, 'storage'));
    await syncDir(staging);
    return missingFiles;
  }

  /**
   * After a restore failed past its commit (the swapped data would not load, or the sweep after it
   * failed): the previous data, kept as `previous`, is swapped back in the same way, and the restore
   * answers what went wrong. Only a failure of this too leaves the restored data in place (a 500
   * naming where the previous data is).
   */
  async function putBack(dir: string, previous: string, cause: unknown): Promise<never> {
    const why = cause instanceof Error ? cause.message : String(cause);
    const staging = join(dir, RESTORE_STAGING);
    try {
      await mkdir(staging, { recursive: true });
      // the previous data was live a moment ago: it loads, and any oddity it held it holds again
      await stage(join(dir, previous), staging, { removeZip: false, check: false });
      await store.replaceFromDisk(async () => {
        await commitRestore(dir);
        await finishRestore(dir);
      });
      await afterRestore();
    } catch (again) {
      throw new ApiError(500, `The restore failed after the swap (${why}) and putting the previous data back failed too (${again instanceof Error ? again.message : String(again)}); the previous data is kept in ${previous}.`);
    }
    if (isDiskError(cause)) throw cause;
    throw badRequest(`Invalid backup archive: the restored data could not be loaded (${why}); the previous data was put back, nothing changed.`);
  }
  return api;
}

/** Writes a stream to `path` through a temporary name, synced. */
async function keep(stream: Readable, path: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await replaceDurably(path, stream);
}

export type Backups = ReturnType<typeof createBackups>;
