// The files of records on disk. Durable like records (docs/architecture.md, "Files"):
//   receive: an upload streams to upload-temp/ under its field's maxSize, then is synced;
//   place (a write's prepare step): renamed into storage/<collectionId>/<recordId>/ and the folder
//     synced, before the write's journal entry; `pending` keeps it from any sweep until the write ends;
//   unplace (the write rolled back): removed again;
//   drop (after the write that no longer names a file is durable): removed with its thumbnails, unless
//     a backup is streaming, which holds every deletion until it ends.
// Start-up sweeps what a crash left: temporary uploads, and files no record names (sweep.ts).
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, rmdir } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { dirname, join } from 'node:path';
import { errorCode, syncDir } from '../durable-files.js';
import { normalizeFileName } from './names.js';
import { collectionDir, filePath, recordDir, STORAGE_DIR, TEMP_DIR, thumbsDirName } from './paths.js';
import { sniff, SNIFF_BYTES } from './sniff.js';
import { OversizeFile, StagedFile } from './staged.js';

type Deletion = () => Promise<void>;

export class FileStorage {
  /** storage/ */
  readonly root: string;
  readonly tempDir: string;
  /** Files placed by writes still in flight. */
  private readonly pending = new Set<string>();
  private holds = 0;
  private deferred: Deletion[] = [];

  constructor(readonly dataDir: string, private readonly report: (error: unknown) => void) {
    this.root = join(dataDir, STORAGE_DIR);
    this.tempDir = join(dataDir, TEMP_DIR);
  }

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

  private later(deletion: Deletion): void {
    if (this.holds > 0) this.deferred.push(deletion);
    else this.run(deletion);
  }

  private run(deletion: Deletion): void {
    deletion().catch((err: unknown) => this.report(err));
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
