// The start-up sweep: what a crash can leave in the data folder is a temporary upload (upload-temp/)
// or a placed file whose write never reached the journal (or whose deletion never ran). Anything no
// record names goes; everything an acknowledged record names stays, with its thumbnails.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCode } from '../durable-files.js';
import { thumbsDirName } from './paths.js';

/**
 * The names a stored record holds in its file fields; null when the record (or its collection) does not
 * exist; undefined when this node cannot tell yet (a collection another node made after this one loaded
 * its registry): its files are kept.
 */
export type NamedFiles = (collectionId: string, recordId: string) => Promise<Set<string> | null | undefined>;

export interface SweepResult {
  removed: string[];
}

async function entries(dir: string): Promise<{ name: string; dir: boolean }[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).map((e) => ({ name: e.name, dir: e.isDirectory() }));
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return [];
    throw err;
  }
}

/** The disk's sweep: `tempDir` goes whole (one process owns a data folder), then `root` is walked. */
export async function sweepStorage(root: string, tempDir: string, named: NamedFiles, knownCollection: (id: string) => boolean): Promise<SweepResult> {
  const removed: string[] = [];
  const remove = async (path: string) => {
    removed.push(path);
    await rm(path, { recursive: true, force: true });
  };
  await rm(tempDir, { recursive: true, force: true });
  for (const col of await entries(root)) {
    const colPath = join(root, col.name);
    if (!col.dir || !knownCollection(col.name)) {
      await remove(colPath);
      continue;
    }
    for (const rec of await entries(colPath)) {
      const recPath = join(colPath, rec.name);
      const names = rec.dir ? await named(col.name, rec.name) : null;
      if (names === null) {
        await remove(recPath);
        continue;
      }
      if (names === undefined) continue;
      const thumbs = new Set([...names].map(thumbsDirName));
      for (const file of await entries(recPath)) {
        const keep = file.dir ? thumbs.has(file.name) : names.has(file.name);
        if (!keep) await remove(join(recPath, file.name));
      }
    }
  }
  return { removed };
}
