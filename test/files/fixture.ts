// A Deskbase on a real socket with a data folder, on the suite's engine (test/support/test-store.ts:
// the desktop's files in storage/ of the folder; on PostgreSQL the team server's files in its
// database, the folder holding only this node's temporary uploads), a superuser SDK client, and small
// images made with sharp.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type PocketBase from 'pocketbase';
import sharp from 'sharp';
import type { RunningServer } from '../../server/index.js';
import { startSdkServer } from '../support/sdk-server.js';
import { openTestStore, TEST_ENGINE } from '../support/test-store.js';

export { ADMIN } from '../support/sdk-server.js';

export interface FileServer {
  server: RunningServer;
  dir: string;
  admin: PocketBase;
  client(): PocketBase;
  /**
   * What is stored for a record, as storage/<collectionId>/<recordId>/ lists it on disk: its files and
   * `thumbs_<name>` for a file with thumbnails, sorted; [] when none. On PostgreSQL read from `_files`
   * (staged rows included: a file left behind is one too).
   */
  stored(collectionId: string, recordId: string): Promise<string[]>;
  /** The thumbnails made of one file (`<size>_<name>`), sorted. */
  thumbsOf(collectionId: string, recordId: string, name: string): Promise<string[]>;
  /** Every file and thumbnail stored for a collection (names only). */
  storedIn(collectionId: string): Promise<string[]>;
  /** This node's temporary uploads. */
  temp(): Promise<string[]>;
  close(): Promise<void>;
}

const list = (path: string) => readdir(path).then((l) => l.sort(), () => [] as string[]);

interface FileRowSeen { recordId: string; name: string; thumb: string }

export async function fileServer(): Promise<FileServer> {
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-files-'));
  const onEngine = TEST_ENGINE === 'postgres' ? { openStore: () => openTestStore('files', undefined, dir) } : {};
  const { server, admin, client } = await startSdkServer({ dir, ...onEngine });
  const rows = (where: string, params: string[]) =>
    server.core.store.all<FileRowSeen>(`SELECT "recordId", "name", "thumb" FROM "_files" WHERE ${where}`, params);
  const asListed = (found: FileRowSeen[]) =>
    [...new Set(found.map((r) => (r.thumb === '' ? r.name : `thumbs_${r.name}`)))].sort();
  return {
    server, dir, admin, client,
    async stored(collectionId, recordId) {
      if (TEST_ENGINE === 'postgres') return asListed(await rows('"collectionId" = ? AND "recordId" = ?', [collectionId, recordId]));
      return list(join(dir, 'storage', collectionId, recordId));
    },
    async thumbsOf(collectionId, recordId, name) {
      if (TEST_ENGINE === 'postgres') {
        const found = await rows(`"collectionId" = ? AND "recordId" = ? AND "name" = ? AND "thumb" <> ''`, [collectionId, recordId, name]);
        return found.map((r) => `${r.thumb}_${r.name}`).sort();
      }
      return list(join(dir, 'storage', collectionId, recordId, `thumbs_${name}`));
    },
    async storedIn(collectionId) {
      if (TEST_ENGINE === 'postgres') return (await rows('"collectionId" = ?', [collectionId])).map((r) => (r.thumb === '' ? r.name : `${r.thumb}_${r.name}`)).sort();
      const found = await readdir(join(dir, 'storage', collectionId), { recursive: true, withFileTypes: true }).catch(() => []);
      return found.filter((e) => e.isFile()).map((e) => e.name).sort();
    },
    temp: () => list(server.core.files.storage.tempDir),
    async close(this: FileServer) {
      // the server a test put in its place, if one did (backup.test.ts restarts it on the same folder)
      await this.server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it holds (a drop runs after the write's answer), at most two seconds. */
export async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

export async function png(width: number, height: number, color = '#c33'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();
}

export const blob = (bytes: Buffer | string, type = 'application/octet-stream') => new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], { type });

export function file(bytes: Buffer | string, name: string, type?: string): File {
  return new File([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], name, { type: type ?? 'application/octet-stream' });
}
