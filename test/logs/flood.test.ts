// The logs on the desktop, over real sockets: kept apart from the data (their own database and journal
// in <data folder>/logs/, never in the data's journal or database, kept across a restart), server
// failures kept, a full log database making room. The flood (timed) is test/logs/log-flood.test.ts.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeLog } from '../../server/logs/index.js';
import PocketBase from 'pocketbase';
import { startServer } from '../../server/index.js';
import { ADMIN, startSdkServer, type SdkServer } from '../support/sdk-server.js';

const dirs: string[] = [];
const servers: SdkServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.server.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-logs-'));
  dirs.push(dir);
  return dir;
}

async function bytesOf(dir: string, pattern: RegExp): Promise<Buffer> {
  const names = (await readdir(dir)).filter((n) => pattern.test(n));
  return Buffer.concat(await Promise.all(names.map((n) => readFile(join(dir, n)))));
}

describe('kept apart from the data', () => {
  it('in <data folder>/logs/ (its own database and journal), never in the data journal, and kept across a restart', async () => {
    const dir = await folder();
    const sdk = await startSdkServer({ dir });
    const marker = 'marker-apart-7f3a';
    await fetch(`${sdk.server.url}/api/health?probe=${marker}`);
    await sdk.server.logs.logger.flush();
    expect((await bytesOf(join(dir, 'logs'), /^journal\./)).includes(marker)).toBe(true);
    expect((await bytesOf(dir, /^journal\./)).includes(marker)).toBe(false);
    expect(await sdk.server.core.store.all("SELECT name FROM sqlite_master WHERE name = '_logs'")).toEqual([]);
    await sdk.server.close();

    // the same folder again (setup done: sign in)
    const again = await startServer({ dir, port: 0, uiDir: null, log: () => undefined });
    try {
      const admin = new PocketBase(again.url);
      await admin.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
      const found = await admin.logs.getList(1, 5, { filter: `data.url ~ '${marker}'` });
      expect(found.totalItems).toBe(1);
    } finally {
      await again.close();
    }
    expect((await bytesOf(dir, /^data\.db$/)).includes(marker)).toBe(false);
  }, 30_000);
});

describe('failures no client hears of', () => {
  it('are kept in the logs as errors (a change listener that throws after a committed write)', async () => {
    const sdk = await startSdkServer({ dir: await folder() });
    servers.push(sdk);
    sdk.server.core.changes.subscribe(() => { throw new Error('listener failed: marker-7c1'); });
    await sdk.admin.collections.create({ name: 'notes', type: 'base', fields: [{ name: 'title', type: 'text' }] });
    await sdk.admin.collection('notes').create({ title: 'x' }); // answered: the write is committed
    await sdk.server.logs.logger.flush();
    const [log] = (await sdk.admin.logs.getList(1, 1, { filter: "data.type = 'server'" })).items;
    expect(log.message).toBe('listener failed: marker-7c1');
    expect(log.level).toBe(8);
    expect(String(log.data.error)).toContain('listener failed: marker-7c1');
  });
});

describe('a full log database', () => {
  it('makes room by deleting the oldest logs: writing goes on, the database stays under its cap', async () => {
    const dir = await folder();
    const { openStore } = await import('../../server/store/db.js');
    const { openLogs } = await import('../../server/logs/index.js');
    const store = await openStore({ dir: null });
    const reported: unknown[] = [];
    const logs = await openLogs({ store, dir, maxBytes: 1024 * 1024, settings: async () => ({ maxDays: 5, minLevel: 0, logIP: true, logAuthId: false }), report: (e) => void reported.push(e), capacity: 100_000 });
    try {
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < 1_000; i++) writeLog(logs, 'info', `round ${round} log ${i}`, { filler: 'y'.repeat(300) });
        await logs.logger.flush();
      }
      expect(reported).toEqual([]);
      expect(logs.logger.dropped).toBe(0);
      expect(logs.logger.written).toBe(10_000);
      const request = { auth: null, method: 'GET', context: 'default', body: {}, query: {}, headers: {} };
      const kept = await logs.list({ perPage: '1', sort: '-@rowid' }, request);
      // ~3.5 MB of logs offered to a 1 MiB database: the newest are there, the oldest made room
      expect(kept.items[0].message).toBe('round 9 log 999');
      expect(kept.totalItems).toBeLessThan(10_000);
      expect(kept.totalItems).toBeGreaterThan(500);
      expect((await logs.list({ filter: "message = 'round 0 log 0'" }, request)).totalItems).toBe(0);
    } finally {
      await logs.close();
      await store.close();
    }
  }, 60_000);
});
