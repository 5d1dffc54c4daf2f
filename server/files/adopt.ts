// Files that arrive in bulk from outside any upload (moving a PocketBase folder in, moving a desktop
// up), never over a file that is there, placed before the transaction that names them commits, as an
// upload placed by a write is. `adopt(tx)` runs inside that transaction, then `settle()` after it, or
// `undo()` after a failure. A crash in between leaves files no record names: the sweep removes them.
// - On disk (DiskFileStorage): each one copied (the user's own folder is only ever read) or
//   hard-linked (a folder of ours: an extracted upload) into storage/<collectionId>/<recordId>/<name>;
//   each file synced, then each record folder, each collection folder, and the parents of folders made
//   here, eight at a time. Until settled the files are pending (no drop removes them); `undo` takes
//   them and the folders made here away again.
// - Anywhere else (the team server's database, db-storage.ts): each one copied to the storage's
//   temporary folder as an upload arrives, then placed through the storage's own `place`, adopted in
//   the transaction (`adopt`), unplaced by `undo`: whatever the storage is, this follows it.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, mkdir, open as openFile, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errorCode, syncDir, syncFile } from '../durable-files.js';
import { collectionDir, filePath, isSafeSegment, recordDir } from './paths.js';
import { sniff, SNIFF_BYTES } from './sniff.js';
import { StagedFile } from './staged.js';
import { DiskFileStorage, type FileStorage, type FileTx } from './storage.js';

export interface Adoption {
  collectionId: string;
  recordId: string;
  name: string;
  /** Where the file is now. */
  source: string;
}

export interface Adopted {
  /** Files placed now. */
  placed: number;
  /** Files already in storage under that record and name: left as they are. */
  present: Adoption[];
  /** Files not at their source (or with a name no storage path may have). */
  missing: Adoption[];
  /** Inside the transaction that names the files: they become the records' with its commit. */
  adopt(tx: FileTx): Promise<void>;
  /** The import committed: the files stop being pending. */
  settle(): void;
  /** The import failed: the files placed and the folders made go. */
  undo(): Promise<void>;
}

/** File operations in flight at once (libuv's pool has four threads; syncs wait on the disk). */
const PARALLEL = 8;

/** Runs `fn` over `items`, PARALLEL at a time; after a failure no new item starts, and it rethrows once all stopped. */
async function eachLimited<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      try {
        await fn(items[next++]);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
}

/** Hard links fail on file systems without them (FAT, some network shares) or across devices: copy there. */
const NO_LINK = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

/** Places one file and syncs it (a linked file's bytes may not be on disk yet either: extraction does not sync). */
async function put(source: string, target: string, how: 'copy' | 'link'): Promise<void> {
  let linked = false;
  if (how === 'link') {
    try {
      await link(source, target);
      linked = true;
    } catch (err) {
      if (!NO_LINK.has(errorCode(err) ?? '')) throw err;
    }
  }
  if (!linked) await copyFile(source, target, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
  await syncFile(target);
}

/** One source file copied into the storage's temporary folder, as an upload arrives; null when the source is not there. */
async function stageCopy(into: FileStorage, item: Adoption): Promise<StagedFile | null> {
  await mkdir(into.tempDir, { recursive: true });
  const temp = join(into.tempDir, randomBytes(12).toString('hex'));
  try {
    await copyFile(item.source, temp, constants.COPYFILE_EXCL);
  } catch (err) {
    if (['ENOENT', 'ENOTDIR', 'EISDIR'].includes(errorCode(err) ?? '')) return null;
    throw err;
  }
  const handle = await openFile(temp, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
    const { size } = await handle.stat();
    return new StagedFile(temp, item.name, item.name, size, sniff(head.subarray(0, bytesRead)));
  } finally {
    await handle.close();
  }
}

/** Any storage but the disk's: each record's files staged and placed through the storage's own steps. */
async function adoptThrough(into: FileStorage, items: readonly Adoption[]): Promise<Adopted> {
  const keys: string[] = [];
  const present: Adoption[] = [];
  const missing: Adoption[] = [];
  let placed = 0;
  const byRecord = new Map<string, Adoption[]>();
  for (const item of items) {
    if (![item.collectionId, item.recordId, item.name].every(isSafeSegment)) missing.push(item);
    else byRecord.set(`${item.collectionId}/${item.recordId}`, [...(byRecord.get(`${item.collectionId}/${item.recordId}`) ?? []), item]);
  }
  const undo = () => into.unplace(keys.splice(0));
  try {
    await eachLimited([...byRecord.values()], async (group) => {
      const staged: StagedFile[] = [];
      try {
        for (const item of group) {
          const stored = await into.open(item.collectionId, item.recordId, item.name);
          if (stored !== null) {
            await stored.close();
            present.push(item);
            continue;
          }
          const file = await stageCopy(into, item);
          if (file === null) missing.push(item);
          else staged.push(file);
        }
        keys.push(...(await into.place(group[0].collectionId, group[0].recordId, staged)));
        placed += staged.length;
      } finally {
        await into.discard(staged); // what was not placed (a no-op for the placed ones)
      }
    });
  } catch (err) {
    await undo();
    throw err;
  }
  return { placed, present, missing, adopt: (tx) => into.adopt(tx, keys), settle: () => into.settle(keys), undo };
}

export async function adoptFiles(into: FileStorage, items: readonly Adoption[], how: 'copy' | 'link'): Promise<Adopted> {
  if (!(into instanceof DiskFileStorage)) return adoptThrough(into, items);
  const storage = into;
  const placed: string[] = [];
  const made: string[] = [];
  const present: Adoption[] = [];
  const missing: Adoption[] = [];
  const undo = async () => {
    await Promise.all(placed.map((p) => rm(p, { force: true })));
    storage.settle(placed);
    for (const dir of [...made].reverse()) await rmdir(dir).catch(() => undefined);
  };
  try {
    // which sources are there
    const found: Adoption[] = [];
    await eachLimited(items, async (item) => {
      if (![item.collectionId, item.recordId, item.name].every(isSafeSegment)) return void missing.push(item);
      const s = await stat(item.source).catch((err: unknown) => {
        if (['ENOENT', 'ENOTDIR'].includes(errorCode(err) ?? '')) return null;
        throw err;
      });
      if (s?.isFile()) found.push(item);
      else missing.push(item);
    });
    // the folders, each made once; the folders whose entries change are synced at the end
    const changed = new Set<string>();
    const collections = new Set(found.map((i) => i.collectionId));
    for (const c of collections) {
      const dir = collectionDir(storage.root, c);
      const first = await mkdir(dir, { recursive: true });
      if (first === undefined) continue;
      // `first` is the topmost folder made: each one made from there down is new in its parent
      const chain: string[] = [];
      for (let d = dir; d.length >= first.length; d = dirname(d)) {
        chain.unshift(d);
        changed.add(dirname(d));
      }
      made.push(...chain);
    }
    const records = new Map(found.map((i) => [`${i.collectionId}/${i.recordId}`, i]));
    await eachLimited([...records.values()], async (i) => {
      const dir = recordDir(storage.root, i.collectionId, i.recordId);
      try {
        await mkdir(dir);
        made.push(dir);
        changed.add(collectionDir(storage.root, i.collectionId));
      } catch (err) {
        if (errorCode(err) !== 'EEXIST') throw err;
      }
    });
    // the files
    await eachLimited(found, async (i) => {
      const target = filePath(storage.root, i.collectionId, i.recordId, i.name);
      try {
        await put(i.source, target, how);
      } catch (err) {
        const code = errorCode(err);
        if (code === 'EEXIST') return void present.push(i);
        if (code === 'ENOENT') return void missing.push(i); // gone since it was found
        throw err;
      }
      placed.push(target);
      storage.claim([target]);
      changed.add(dirname(target));
    });
    await eachLimited([...changed], syncDir);
  } catch (err) {
    await undo();
    throw err;
  }
  // the files are in place already: the transaction has nothing to do for them
  return { placed: placed.length, present, missing, adopt: async () => undefined, settle: () => storage.settle(placed), undo };
}
