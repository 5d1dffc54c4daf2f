// Where a PocketBase import reads from: a pb_data folder on this machine (the CLI), or an upload (the
// admin UI and POST /api/import/pocketbase) that is either a bare data.db or a PocketBase backup zip.
// The upload is told apart by its first bytes ("SQLite format 3\0" or a zip's "PK\3\4"), streamed to
// a file under upload-temp/ (never held whole in memory; the start-up sweep empties that folder), and a
// zip is extracted there with every entry checked (files/archive.ts) before the same folder import as
// the CLI's runs on it. PocketBase's backup zip is its pb_data folder at the zip's root (core/base_backup.go:
// data.db, auxiliary.db, storage/...): only data.db, a data.db-wal, and the originals under
// storage/<collectionId>/<recordId>/ are extracted; logs, thumbnails and anything else are skipped.
import { randomBytes } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { dirname, join } from 'node:path';
import { badRequest, tooLarge } from '../../errors.js';
import { ARCHIVE_DB, ArchiveError, DEFAULT_ARCHIVE_LIMITS, extractArchive, type ArchiveLayout } from '../../files/archive.js';
import { isSafeSegment, STORAGE_DIR } from '../../files/paths.js';
import { OversizeFile } from '../../files/staged.js';
import type { FileStorage } from '../../files/storage.js';
import { isDiskError, readWhole } from '../../durable-files.js';
import type { PocketBaseImportResult, PocketBaseSource } from './pocketbase-folder.js';

/** The largest upload (a backup zip with its files), as a restore's. */
export const MAX_POCKETBASE_UPLOAD = 64 * 1024 ** 3;
/** The largest data.db (sql.js holds it in memory while it is read). */
export const MAX_POCKETBASE_DB = DEFAULT_ARCHIVE_LIMITS.dbBytes;
const WAL = `${ARCHIVE_DB}-wal`;

/** PocketBase's pb_data at a zip's root: data.db (and its WAL, to check it is empty) and the originals under storage/. */
export const pocketBaseLayout: ArchiveLayout = (name) => {
  if (name === ARCHIVE_DB) return { kind: 'db' };
  if (name === WAL) return { kind: 'file', path: [WAL] };
  const parts = name.split('/');
  // storage/<collectionId>/<recordId>/<name>: anything else (thumbs_<name>/, auxiliary.db, odd names) is not needed
  if (parts.length === 4 && parts[0] === STORAGE_DIR && parts.slice(1).every(isSafeSegment)) return { kind: 'file', path: parts };
  return { kind: 'skip' };
};

/** A dry run reads the database alone: the files are looked at only when the import is applied. */
const databaseOnlyLayout: ArchiveLayout = (name) => {
  const target = pocketBaseLayout(name);
  return target.kind === 'file' && target.path[0] === STORAGE_DIR ? { kind: 'skip' } : target;
};

/**
 * A PocketBase folder (or the path of its data.db, its storage/ beside it): the database read into
 * memory after checking it is whole. `how` says whether its files are copied (the user's folder) or
 * linked (a folder of ours).
 */
export async function readPocketBaseFolder(path: string, how: 'copy' | 'link', from = 'the folder'): Promise<PocketBaseSource> {
  const isDir = (await stat(path).catch(() => null))?.isDirectory() === true;
  const dbFile = isDir ? join(path, ARCHIVE_DB) : path;
  const size = (await stat(dbFile).catch(() => null))?.size;
  if (size === undefined) throw badRequest(isDir ? `No ${ARCHIVE_DB} in ${path}: is it PocketBase's pb_data folder?` : `No PocketBase database at ${path}.`);
  if (size > MAX_POCKETBASE_DB) throw badRequest(`The PocketBase database is larger than ${MAX_POCKETBASE_DB / 1024 ** 3} GiB.`);
  // PocketBase runs SQLite in WAL mode: writes not yet folded into data.db would be missed (sql.js reads data.db alone)
  if (((await stat(`${dbFile}-wal`).catch(() => null))?.size ?? 0) > 0) {
    throw badRequest(`The ${ARCHIVE_DB}-wal file holds writes that are not in ${ARCHIVE_DB} yet: stop PocketBase (it folds them in when it closes), or use a backup from its Backups page, and import again.`);
  }
  const db = await readWhole(dbFile);
  if (db === null) throw badRequest(`No PocketBase database at ${dbFile}.`);
  return { db, files: { dir: join(dirname(dbFile), STORAGE_DIR), how, from } };
}


export function createPocketBaseUpload(storage: FileStorage, importFolder: (source: PocketBaseSource, dryRun: boolean) => Promise<PocketBaseImportResult>) {
  let busy = false;

  async function fromFile(upload: string, sniffed: string, size: number, work: string, dryRun: boolean): Promise<PocketBaseImportResult> {
    if (sniffed === 'application/zip') {
      try {
        // not synced here: the files kept are synced as they are placed (files/adopt.ts), the rest goes
        await extractArchive(upload, work, { layout: dryRun ? databaseOnlyLayout : pocketBaseLayout, sync: false });
      } catch (err) {
        if (isDiskError(err)) throw err; // anything else wrong with an archive is the upload's fault
        const why = err instanceof ArchiveError ? err.message : 'it cannot be read as a zip file';
        throw badRequest(`Invalid PocketBase backup zip: ${why.replace('the archive has no data.db', 'it has no data.db at its root')}.`);
      }
      await rm(upload, { force: true }); // the disk holds one copy at a time
      return importFolder(await readPocketBaseFolder(work, 'link', 'the backup zip'), dryRun);
    }
    if (sniffed !== 'application/vnd.sqlite3') throw badRequest('Failed to read the PocketBase database: the upload is neither a data.db (SQLite) nor a PocketBase backup zip.');
    if (size > MAX_POCKETBASE_DB) throw badRequest(`The PocketBase database is larger than ${MAX_POCKETBASE_DB / 1024 ** 3} GiB.`);
    const db = await readWhole(upload);
    return importFolder({ db: db ?? new Uint8Array(0), files: { dir: null, how: 'link', from: 'the upload' } }, dryRun);
  }

  return {
    /**
     * Imports an upload: `open` hands its body over, at once unless the upload is refused first (one
     * import at a time, as PocketBase's backups and restores; a declared size over the limit).
     * `dryRun`: what the import would change (pocketbase-folder.ts), nothing applied.
     */
    async upload(open: () => Readable, declaredBytes: number, dryRun = false): Promise<PocketBaseImportResult> {
      if (busy) throw badRequest('Another PocketBase import is running; try again once it has finished.');
      if (declaredBytes > MAX_POCKETBASE_UPLOAD) throw tooLarge();
      busy = true;
      const work = join(storage.tempDir, `pocketbase-${randomBytes(6).toString('hex')}`);
      try {
        const staged = await storage.receive(open(), 'pocketbase-upload', MAX_POCKETBASE_UPLOAD, false);
        if (staged instanceof OversizeFile) throw tooLarge();
        try {
          return await fromFile(staged.tempPath, staged.sniffed.mime, staged.size, work, dryRun);
        } finally {
          await storage.discard([staged]);
        }
      } finally {
        await rm(work, { recursive: true, force: true });
        busy = false;
      }
    },
  };
}
