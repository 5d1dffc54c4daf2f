// Backup archives: one zip holding `data.db` and `storage/<collectionId>/<recordId>/<name>` (yazl to
// write, streamed; yauzl to read). Reading checks every entry before anything lands on disk: only
// those two shapes of path, each segment plain (no zip-slip, no hidden names), no links, sizes
// bounded and checked against what the entries declare. Another layout (a PocketBase backup's:
// transfer/pocketbase-source.ts) may skip entries it does not need; those are never written.
import { createWriteStream } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform } from 'node:stream';
import type yauzl from 'yauzl';
import { syncDir, syncFile } from '../durable-files.js';
import { isSafeSegment, STORAGE_DIR } from './paths.js';

export const ARCHIVE_DB = 'data.db';

/** What an archive may hold when restored (the server's memory holds the database). */
export interface ArchiveLimits {
  dbBytes: number;
  totalBytes: number;
  entries: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { dbBytes: 2 * 1024 ** 3, totalBytes: 256 * 1024 ** 3, entries: 1_000_000 };

/**
 * `files` are paths relative to storage/ (`<collectionId>/<recordId>/<name>`); a named file that is not
 * on disk (a restore reported it missing) is left out. Failures end the stream with the error.
 */
function* pieces(bytes: Uint8Array, size: number): Generator<Buffer> {
  for (let at = 0; at < bytes.byteLength; at += size) yield Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(size, bytes.byteLength - at));
}

export async function writeArchive(db: Uint8Array, storageRoot: string, files: readonly string[]): Promise<Readable> {
  // yazl and yauzl are loaded by the first backup or restore, not with the server
  const { default: yazl } = await import('yazl');
  const zip = new yazl.ZipFile();
  const out = zip.outputStream as Readable;
  zip.on('error', (err: Error) => out.destroy(err));
  // as a stream of 1 MiB pieces, not addBuffer: yazl checksums a buffer in JavaScript in one piece
  // (hundreds of ms for a large database, every other request waiting), a stream piece by piece
  zip.addReadStream(Readable.from(pieces(db, 1024 * 1024)), ARCHIVE_DB, { compress: true, size: db.byteLength });
  void (async () => {
    for (const rel of files) {
      const path = join(storageRoot, rel);
      if (!(await access(path).then(() => true, () => false))) continue;
      // stored, not deflated: uploads are mostly compressed already, and deflate would cost CPU per byte
      zip.addFile(path, `${STORAGE_DIR}/${rel}`, { compress: false });
    }
    zip.end();
  })().catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}

export class ArchiveError extends Error {}

/** Where an entry goes, relative to the extraction folder: `data.db`, a file, a folder, or nowhere. */
export type EntryTarget = { kind: 'db' } | { kind: 'dir' } | { kind: 'skip' } | { kind: 'file'; path: string[] };

/** Which entries an archive may hold and where each goes; throws an ArchiveError to refuse it. */
export type ArchiveLayout = (name: string) => EntryTarget;

/** Deskbase's own backups: `data.db` and storage/ only, anything else refused. */
export const backupLayout: ArchiveLayout = (name) => {
  if (name === ARCHIVE_DB) return { kind: 'db' };
  const dir = name.endsWith('/');
  const parts = (dir ? name.slice(0, -1) : name).split('/');
  if (parts[0] !== STORAGE_DIR) throw new ArchiveError(`unexpected entry ${JSON.stringify(name.slice(0, 200))}`);
  const segments = parts.slice(1);
  // <collectionId>/<recordId>/<name>, or a thumbnail <collectionId>/<recordId>/thumbs_<name>/<size>_<name>
  if (segments.length > 4 || (!dir && segments.length < 3) || !segments.every(isSafeSegment)) {
    throw new ArchiveError(`unsafe entry ${JSON.stringify(name.slice(0, 200))}`);
  }
  return dir ? { kind: 'dir' } : { kind: 'file', path: [STORAGE_DIR, ...segments] };
};

const isLink = (entry: yauzl.Entry) => ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000;

/**
 * Extracts an archive into `into` where its layout places each entry (a backup's: data.db and storage/),
 * every file synced unless `sync` is false, each entry checked first. Rejects with an ArchiveError
 * naming the first problem; the caller removes `into`.
 */
export interface ExtractOptions {
  limits?: ArchiveLimits;
  layout?: ArchiveLayout;
  /** Sync every file and folder written (default); a caller that syncs what it keeps itself says false. */
  sync?: boolean;
}

export async function extractArchive(zipPath: string, into: string, options: ExtractOptions = {}): Promise<{ files: number }> {
  const { limits = DEFAULT_ARCHIVE_LIMITS, layout = backupLayout, sync = true } = options;
  const { default: yauzl } = await import('yauzl');
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(zipPath, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true, decodeStrings: true }, (err, z) => (err ? reject(new ArchiveError(err.message)) : resolve(z))),
  );
  let total = 0;
  let count = 0;
  let db = false;
  let files = 0;
  const dirs = new Set<string>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err: Error) => reject(new ArchiveError(err.message)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        void (async () => {
          if (++count > limits.entries) throw new ArchiveError(`more than ${limits.entries} entries`);
          const t = layout(entry.fileName);
          if (t.kind === 'skip') return;
          if (isLink(entry)) throw new ArchiveError(`links are not allowed (${entry.fileName.slice(0, 200)})`);
          total += entry.uncompressedSize;
          if (total > limits.totalBytes) throw new ArchiveError('the archive is larger than the limit');
          if (t.kind === 'dir') return;
          if (t.kind === 'db') {
            if (db) throw new ArchiveError('two data.db entries');
            if (entry.uncompressedSize > limits.dbBytes) throw new ArchiveError('data.db is larger than the limit');
            db = true;
          } else files++;
          const path = t.kind === 'db' ? join(into, ARCHIVE_DB) : join(into, ...t.path);
          await mkdir(dirname(path), { recursive: true });
          dirs.add(dirname(path));
          const source = await new Promise<Readable>((res, rej) => zip.openReadStream(entry, (err, s) => (err ? rej(new ArchiveError(err.message)) : res(s))));
          await writeSynced(source, path, entry.uncompressedSize, sync);
        })().then(() => zip.readEntry(), reject);
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  if (!db) throw new ArchiveError('the archive has no data.db');
  if (sync) for (const d of dirs) await syncDir(d);
  return { files };
}

/** Writes a stream to a new file (never over an existing one) and syncs it; at most `limit` bytes. */
async function writeSynced(source: Readable, path: string, limit: number, sync: boolean): Promise<void> {
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(size > limit ? new ArchiveError('an entry is larger than it declares') : null, chunk);
    },
  });
  await pipeline(source, count, createWriteStream(path, { flags: 'wx' }));
  if (sync) await syncFile(path);
}
