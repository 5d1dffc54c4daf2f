// Backups and restores of the whole data: `data.db` and `storage/` in one zip.
//
// A backup is taken without stopping writes: the database bytes and the list of files its records
// name are read in the same synchronous stretch (so they agree), and deletions wait while the zip
// streams (files are immutable once named, and only deletions could take one away).
//
// A restore receives an archive to a temporary file, extracts and checks it (files/archive.ts: paths,
// links, sizes; store/restore.ts: a healthy database with the system tables), reports the files its
// records name that it lacks, then swaps it in through the store (writes wait; crash-safe from the
// commit marker on) after keeping the previous data as `backups/before-restore-<time>.zip` beside it.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { badRequest, tooLarge } from '../errors.js';
import { ARCHIVE_DB, ArchiveError, extractArchive, writeArchive } from '../files/archive.js';
import type { FileStorage } from '../files/storage.js';
import { syncDir } from '../store/files.js';
import type { ReadDb, Store } from '../store/db.js';
import { commitRestore, finishRestore, RESTORE_STAGING } from '../store/restore.js';
import { ident } from '../filter/sql.js';
import { storedNames } from './file-cleanup.js';
import type { Collection, FileField, Row } from './types.js';

export const BACKUPS_DIR = 'backups';
/** The largest archive a restore accepts (what the upload may hold on disk while it is checked). */
export const MAX_RESTORE_BYTES = 64 * 1024 ** 3;

export interface RestoreResult {
  /** Files the restored records name that the archive did not hold (`<collectionId>/<recordId>/<name>`). */
  missingFiles: string[];
  /** Where the previous data was kept, relative to the data folder. */
  previous: string;
}

/** Every file the records of `db` name, as `<collectionId>/<recordId>/<name>`; collections as `db` defines them. */
export function namedFiles(db: ReadDb): string[] {
  const out: string[] = [];
  for (const { definition } of db.all<{ definition: string }>('SELECT "data" AS definition FROM "_collections"')) {
    let c: Collection;
    try {
      c = JSON.parse(definition) as Collection;
    } catch {
      continue;
    }
    const fields = (c.fields ?? []).filter((f): f is FileField => f.type === 'file');
    if (fields.length === 0) continue;
    const rows = db.all<Row>(`SELECT "id", ${fields.map((f) => ident(f.name)).join(', ')} FROM ${ident(c.name)}`);
    for (const row of rows) for (const f of fields) for (const name of storedNames(f, row)) out.push(`${c.id}/${String(row.id)}/${name}`);
  }
  return out;
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

export function createBackups(store: Store, storage: FileStorage, afterRestore: () => Promise<void>) {
  let restoring = false;
  /** The zip of everything as it is now; deletions wait until it has streamed (or the reader left). */
  function snapshot(): Readable {
    const release = storage.hold();
    try {
      const db = store.backup();
      const files = namedFiles(store);
      const stream = writeArchive(db, storage.root, files);
      stream.once('close', release);
      stream.once('end', release);
      stream.once('error', release);
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

  return {
    /** `deskbase-<time>.zip` and its stream. */
    backup(): { name: string; stream: Readable } {
      return { name: `deskbase-${stamp()}.zip`, stream: snapshot() };
    },

    async restore(source: () => Readable, declaredBytes: number): Promise<RestoreResult> {
      const dir = store.dir;
      if (dir === null) throw badRequest('Restoring needs a data folder (this server keeps its data in memory).');
      // one restore at a time, as PocketBase: a second one would share (and wipe) the staging folder
      if (restoring) throw badRequest('Try again later: another restore is running.');
      restoring = true;
      const staging = join(dir, RESTORE_STAGING);
      let committed = false;
      try {
        const upload = await receive(source(), declaredBytes, dir);
        const into = join(staging, 'data');
        try {
          await extractArchive(upload, into);
        } catch (err) {
          throw badRequest(`Invalid backup archive: ${err instanceof ArchiveError ? err.message : 'it cannot be read as a zip file'}.`);
        } finally {
          await rm(upload, { force: true });
        }
        let check: ReadDb & { close(): void };
        try {
          check = store.inspect(await readFile(join(into, ARCHIVE_DB)));
        } catch (err) {
          throw badRequest(`Invalid backup archive: ${err instanceof Error ? err.message : String(err)}.`);
        }
        const missingFiles: string[] = [];
        try {
          for (const rel of namedFiles(check)) {
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
        const previous = join(BACKUPS_DIR, `before-restore-${stamp()}.zip`);
        await store.replaceFromDisk(async () => {
          await keep(snapshot(), join(dir, previous));
          await commitRestore(dir);
          committed = true;
          await finishRestore(dir);
        });
        await afterRestore();
        return { missingFiles: missingFiles.slice(0, 1000), previous };
      } finally {
        if (!committed) await rm(staging, { recursive: true, force: true });
        restoring = false;
      }
    },
  };
}

/** Writes a stream to `path` through a temporary name, synced. */
async function keep(stream: Readable, path: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  const temp = `${path}.tmp`;
  await pipeline(stream, createWriteStream(temp));
  const handle = await open(temp, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  await syncDir(join(path, '..'));
}

export type Backups = ReturnType<typeof createBackups>;
