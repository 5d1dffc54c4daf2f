// The files of records: one interface (FileStorage), two homes for the bytes, chosen by the store's
// engine (docs/architecture.md, "Files"):
//   - DiskFileStorage (below), the desktop's: storage/<collectionId>/<recordId>/ in the data folder;
//   - DatabaseFileStorage (db-storage.ts), the team server's: rows of the database every node shares.
// Both keep the same life of a file:
//   receive: an upload streams to this node's upload-temp/ under its field's maxSize, then is synced;
//   place (a write's prepare step): moved to where files live, before the write's transaction;
//   adopt (inside the write's transaction): the database version's placed rows become the record's in
//     the same commit (the disk version has nothing to do: the journal entry is the commit);
//   unplace (the write rolled back): removed again;
//   drop (after the write that no longer names a file is durable): removed with its thumbnails, unless
//     a backup is streaming, which holds every deletion until it ends.
// Start-up sweeps what a crash left: temporary uploads, and files no record names (sweep).
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, rmdir, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { dirname, join } from 'node:path';
import { errorCode, syncDir } from '../durable-files.js';
import { normalizeFileName } from './names.js';
import { collectionDir, filePath, recordDir, STORAGE_DIR, TEMP_DIR, thumbPath, thumbsDirName } from './paths.js';
import { sniff, SNIFF_BYTES } from './sniff.js';
import { OversizeFile, StagedFile } from './staged.js';
import { sweepStorage, type NamedFiles, type SweepResult } from './sweep.js';
import { Thumbnails } from './thumbs.js';

export type { NamedFiles, SweepResult } from './sweep.js';

/** A stored file (an original or a thumbnail) opened for serving. */
export interface StoredFile {
  readonly size: number;
  /** When it was stored (Last-Modified, the ETag). */
  readonly mtime: Date;
  /** Its first `bytes` bytes (fewer when it is shorter): what its type is sniffed from. */
  head(bytes: number): Promise<Buffer>;
  /** Bytes start..end (inclusive) as a stream; the file is released when the stream ends or fails. */
  stream(start: number, end: number): Readable;
  /** Releases the file when no stream was taken. */
  close(): Promise<void>;
}

/** The part of a write transaction adopt needs (the store's WriteTx is one). */
export interface FileTx {
  run(sql: string, params?: readonly unknown[]): Promise<{ changes: number }>;
}

/** A write's open transaction, for placing inside it (a hooked write's prepare step runs there). */
export interface PlaceTx extends FileTx {
  get<R>(sql: string, params?: readonly unknown[]): Promise<R | undefined>;
}

/** Where the files of records live; core holds one (CoreEnv.storage). */
export interface FileStorage {
  readonly kind: 'disk' | 'database';
  /** This node's temporary uploads. */
  readonly tempDir: string;
  /** Thumbnail generations (tests count them). */
  readonly thumbs: Thumbnails;
  /**
   * Streams one upload to a temporary file and syncs it (unless `sync` is false: an upload that is only
   * read, never placed). Past `limit` bytes the file is removed and the rest of the part read and
   * dropped: the disk never holds more than the limit.
   */
  receive(source: Readable, originalName: string, limit: number, sync?: boolean): Promise<StagedFile | OversizeFile>;
  /** Removes the temporary files of uploads that no write placed (a no-op for placed ones). */
  discard(files: readonly StagedFile[]): Promise<void>;
  /**
   * Moves staged files to the record before its write's transaction; returns what settle/unplace take.
   * `tx`: the write's transaction when the prepare step runs inside it (a write with hooks): the
   * database storage places through it (its own short transactions would wait on that write's turn).
   */
  place(collectionId: string, recordId: string, files: readonly StagedFile[], tx?: PlaceTx): Promise<string[]>;
  /** Inside the write's transaction: the placed files become the record's with its commit. */
  adopt(tx: FileTx, placed: readonly string[]): Promise<void>;
  /** A placed file's write is settled (committed or rolled back). */
  settle(placed: readonly string[]): void;
  /** The write that placed these files rolled back: they go, before its answer. */
  unplace(placed: readonly string[]): Promise<void>;
  /** Removes files a durable write no longer names, with their thumbnails (held during backups). */
  drop(collectionId: string, recordId: string, names: readonly string[]): void;
  /** Removes a deleted collection's files (after the deletion is durable). */
  dropCollection(collectionId: string): void;
  /** Holds every deletion until the returned function is called (a backup streams the files). */
  hold(): () => void;
  /** A stored original, or null when there is none. */
  open(collectionId: string, recordId: string, name: string): Promise<StoredFile | null>;
  /** The `size` thumbnail of a stored image of type `mime`, made on first request; rejects when it cannot be made. */
  thumbnail(collectionId: string, recordId: string, name: string, size: string, mime: string): Promise<StoredFile>;
  /** The start-up sweep: this node's (and dead nodes') temporary uploads, and files no record names. */
  sweep(named: NamedFiles, knownCollection: (id: string) => boolean): Promise<SweepResult>;
}

type Deletion = () => Promise<void>;

/** What both homes share: receiving uploads to this node's temporary folder, and held deletions. */
export abstract class UploadArea {
  readonly thumbs = new Thumbnails();
  private holds = 0;
  private deferred: Deletion[] = [];

  constructor(readonly tempDir: string, protected readonly report: (error: unknown) => void) {}

  /**
   * Streams one upload to a temporary file and syncs it (unless `sync` is false: an upload that is only
   * read, never placed). Past `limit` bytes the file is removed and the rest of the part read and
   * dropped: the disk never holds more than the limit.
   */
  async receive(source: Readable, originalName: string, limit: number, sync = true): Promise<StagedFile | OversizeFile> {
    await mkdir(this.tempDir, { recursive: true });
    const temp = join(this.tempDir, randomBytes(12).toString('hex'));
    const handle = await open(temp, 'wx');
    let size = 0;
    const head: Buffer[] = [];
    let headBytes = 0;
    let over = false;
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        if (over) continue; // drain
        size += chunk.length;
        if (size > limit) {
          over = true;
          continue;
        }
        if (headBytes < SNIFF_BYTES) {
          head.push(chunk.subarray(0, SNIFF_BYTES - headBytes));
          headBytes += Math.min(chunk.length, SNIFF_BYTES - headBytes);
        }
        await handle.write(chunk);
      }
      if (!over && sync) await handle.sync();
    } catch (err) {
      await handle.close().catch(() => undefined);
      await rm(temp, { force: true });
      throw err;
    }
    await handle.close();
    if (over) {
      await rm(temp, { force: true });
      return new OversizeFile(originalName, limit);
    }
    const sniffed = sniff(Buffer.concat(head));
    return new StagedFile(temp, originalName, normalizeFileName(originalName, sniffed.ext), size, sniffed);
  }

  /** Removes the temporary files of uploads that no write placed (a no-op for placed ones). */
  async discard(files: readonly StagedFile[]): Promise<void> {
    await Promise.all(files.map((f) => rm(f.tempPath, { force: true })));
  }

  /** Holds every deletion until the returned function is called (a backup streams the files). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds > 0) return;
      const queue = this.deferred;
      this.deferred = [];
      for (const run of queue) this.run(run);
    };
  }

  protected later(deletion: Deletion): void {
    if (this.holds > 0) this.deferred.push(deletion);
    else this.run(deletion);
  }

  private run(deletion: Deletion): void {
    deletion().catch((err: unknown) => this.report(err));
  }
}

/** The desktop's home for files: storage/ of the data folder (PocketBase's layout). */
export class DiskFileStorage extends UploadArea implements FileStorage {
  readonly kind = 'disk' as const;
  /** storage/ */
  readonly root: string;
  /** Files placed by writes still in flight. */
  private readonly pending = new Set<string>();

  constructor(readonly dataDir: string, report: (error: unknown) => void) {
    super(join(dataDir, TEMP_DIR), report);
    this.root = join(dataDir, STORAGE_DIR);
  }

  /** Renames staged files into the record's folder and syncs it: they survive a crash from here on. */
  async place(collectionId: string, recordId: string, files: readonly StagedFile[]): Promise<string[]> {
    if (files.length === 0) return [];
    const dir = recordDir(this.root, collectionId, recordId);
    const placed: string[] = [];
    try {
      await this.ensureDir(dir);
      for (const f of files) {
        const target = filePath(this.root, collectionId, recordId, f.name);
        this.pending.add(target);
        placed.push(target);
        try {
          await rename(f.tempPath, target);
        } catch (err) {
          // the folder went away in between (a drop removed it as empty): once more
          if (errorCode(err) !== 'ENOENT') throw err;
          await this.ensureDir(dir);
          await rename(f.tempPath, target);
        }
      }
      await syncDir(dir);
    } catch (err) {
      await this.unplace(placed);
      throw err;
    }
    return placed;
  }

  /** Files placed by other means (adopt.ts) that a write in flight will name: kept from drops until settled. */
  claim(paths: readonly string[]): void {
    for (const p of paths) this.pending.add(p);
  }

  /** A placed file's write is settled (committed or rolled back). */
  settle(paths: readonly string[]): void {
    for (const p of paths) this.pending.delete(p);
  }

  /** The write that placed these files rolled back: they go, synchronously with its answer. */
  async unplace(paths: readonly string[]): Promise<void> {
    await Promise.all(paths.map((p) => rm(p, { force: true })));
    this.settle(paths);
    const dirs = new Set(paths.map((p) => dirname(p)));
    for (const d of dirs) await rmdir(d).catch(() => undefined);
  }

  isPending(path: string): boolean {
    return this.pending.has(path);
  }

  /** Removes files a durable write no longer names, with their thumbnails (held during backups). */
  drop(collectionId: string, recordId: string, names: readonly string[]): void {
    if (names.length === 0) return;
    this.later(async () => {
      const dir = recordDir(this.root, collectionId, recordId);
      for (const name of names) {
        const path = filePath(this.root, collectionId, recordId, name);
        if (this.pending.has(path)) continue;
        await rm(path, { force: true });
        await rm(join(dir, thumbsDirName(name)), { recursive: true, force: true });
      }
      await rmdir(dir).catch(() => undefined); // only when empty
    });
  }

  /** Removes a deleted collection's folder (after the deletion is durable). */
  dropCollection(collectionId: string): void {
    this.later(async () => {
      await rm(collectionDir(this.root, collectionId), { recursive: true, force: true });
    });
  }

  /** The journal entry is the commit: nothing to do inside the transaction. */
  adopt(): Promise<void> {
    return Promise.resolve();
  }

  async open(collectionId: string, recordId: string, name: string): Promise<StoredFile | null> {
    try {
      return await openOnDisk(filePath(this.root, collectionId, recordId, name));
    } catch {
      return null;
    }
  }

  async thumbnail(collectionId: string, recordId: string, name: string, size: string, mime: string): Promise<StoredFile> {
    const target = thumbPath(this.root, collectionId, recordId, name, size);
    await this.thumbs.ensure(filePath(this.root, collectionId, recordId, name), target, size, mime);
    return openOnDisk(target);
  }

  sweep(named: NamedFiles, knownCollection: (id: string) => boolean): Promise<SweepResult> {
    return sweepStorage(this.root, this.tempDir, named, knownCollection);
  }

  /** Creates a folder and its missing parents, syncing each parent whose entries changed. */
  private async ensureDir(dir: string): Promise<void> {
    const created = await mkdir(dir, { recursive: true });
    if (created === undefined) return;
    // `created` is the first folder made: sync every parent from its parent down
    let d = dir;
    const chain: string[] = [];
    while (d.length >= created.length) {
      chain.push(dirname(d));
      d = dirname(d);
    }
    for (const parent of chain.reverse()) await syncDir(parent);
  }
}

/** A file on disk opened for serving: one handle, read for the sniff and streamed from. */
async function openOnDisk(path: string): Promise<StoredFile> {
  const handle: FileHandle = await open(path, 'r');
  try {
    const stat = await handle.stat();
    return {
      size: stat.size,
      mtime: stat.mtime,
      async head(bytes: number) {
        const buf = Buffer.alloc(bytes);
        const { bytesRead } = await handle.read(buf, 0, bytes, 0);
        return buf.subarray(0, bytesRead);
      },
      stream: (start: number, end: number) => handle.createReadStream({ start, end, autoClose: true }),
      close: () => handle.close(),
    };
  } catch (err) {
    await handle.close();
    throw err;
  }
}
