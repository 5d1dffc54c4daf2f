// startServer's options: one the server would not honour is refused, naming it, before anything opens.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.js';
import { openStore } from '../../server/store/db.js';

const made: string[] = [];
afterAll(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

describe('startServer options', () => {
  it('refuses the desktop engine\'s store options beside openStore, naming them, without opening either', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deskbase-options-'));
    made.push(dir);
    let opened = 0;
    const start = startServer({
      dir, port: 0, uiDir: null, hooksDir: null, migrationsDir: null, log: () => undefined,
      openStore: () => {
        opened++;
        return openStore({ dir: null });
      },
      store: { checkpointBytes: 4096, syncEveryMs: 50 },
    });
    await expect(start).rejects.toThrow('store options (checkpointBytes, syncEveryMs) apply to the desktop engine Deskbase opens on dir; with openStore, give them to the store it opens');
    expect(opened).toBe(0);
    expect(await readdir(dir)).toEqual([]);
  });

  it('serves the store openStore opens, given alone', async () => {
    const server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, openStore: () => openStore({ dir: null, checkpointBytes: 4096 }) });
    try {
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
