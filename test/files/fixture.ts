// A Deskbase on a real socket with a data folder, a superuser SDK client, and small images made with sharp.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type PocketBase from 'pocketbase';
import sharp from 'sharp';
import type { RunningServer } from '../../server/index.js';
import { startSdkServer } from '../support/sdk-server.js';

export { ADMIN } from '../support/sdk-server.js';

export interface FileServer {
  server: RunningServer;
  dir: string;
  admin: PocketBase;
  client(): PocketBase;
  /** Files under storage/<collectionId>/<recordId>/ (thumbnail folders included), sorted; [] when none. */
  stored(collectionId: string, recordId: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function fileServer(): Promise<FileServer> {
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-files-'));
  const { server, admin, client } = await startSdkServer({ dir });
  return {
    server, dir, admin, client,
    async stored(collectionId, recordId) {
      try {
        return (await readdir(join(dir, 'storage', collectionId, recordId))).sort();
      } catch {
        return [];
      }
    },
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function png(width: number, height: number, color = '#c33'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();
}

export const blob = (bytes: Buffer | string, type = 'application/octet-stream') => new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], { type });

export function file(bytes: Buffer | string, name: string, type?: string): File {
  return new File([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], name, { type: type ?? 'application/octet-stream' });
}
