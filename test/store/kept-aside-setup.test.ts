// F15: when recovery keeps a damaged part of the journal aside and no superuser survives, the part kept
// aside may hold the first superuser's creation: setup is not offered over the surviving data (no token
// in the log, GET /api/setup says why, POST /api/setup refuses) until the owner deals with the kept
// files (deletes them) and restarts.
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.js';
import { scanEntries } from '../../server/store/journal-format.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';
import { crashCopy, segmentFiles, useStores } from '../fixtures/store-helpers.js';

const { dirs } = useStores();

/** A crash copy of a folder where a collection was made, then the first superuser, then one more write. */
async function crashedAfterSetup(): Promise<string> {
  const dir = dirs.make();
  const server = await startServer({ dir, port: 0, uiDir: null, log: () => undefined });
  try {
    const su = await setupSuperuser(server.url, (await server.setupToken())!, 'owner@example.com');
    await http(server.url, 'POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 't', type: 'text' }] } });
    const crashed = dirs.make();
    crashCopy(dir, crashed);
    return crashed;
  } finally {
    await server.close();
  }
}

describe('F15: setup after a damaged journal', () => {
  it('is held back while the damaged part is kept aside, and offered again once the owner deletes it', async () => {
    const dir = await crashedAfterSetup();
    const [segment] = segmentFiles(dir);
    const bytes = readFileSync(segment);
    const creation = scanEntries(bytes).entries.find((e) => Buffer.from(e.payload).includes('owner@example.com'));
    expect(creation).toBeDefined();
    bytes[creation!.offset + 12] ^= 0xff; // the superuser's creation and everything after it go aside
    writeFileSync(segment, bytes);

    for (let start = 0; start < 2; start++) { // the same on the next start: nothing was dealt with
      const lines: string[] = [];
      const server = await startServer({ dir, port: 0, uiDir: null, log: (line) => lines.push(line) });
      try {
        expect(lines.some((l) => l.startsWith('Setup token'))).toBe(false);
        expect(lines.some((l) => /^Setup is held back: .*journal\.1\.log\.damaged-/.test(l))).toBe(true);
        expect((await server.setupToken())).toBeNull();
        const status = await http(server.url, 'GET', '/api/setup');
        expect(status.body).toMatchObject({ required: true, heldBack: expect.stringMatching(/damaged journal/) });
        const attempt = await http(server.url, 'POST', '/api/setup', { body: { token: 'x', email: 'thief@example.com', password: 'a long password' } });
        expect(attempt.status).toBe(403);
        expect(attempt.body.message).toMatch(/^Setup is held back/);
      } finally {
        await server.close();
      }
    }

    for (const name of readdirSync(dir).filter((n) => n.includes('.damaged-'))) rmSync(join(dir, name));
    const lines: string[] = [];
    const server = await startServer({ dir, port: 0, uiDir: null, log: (line) => lines.push(line) });
    try {
      expect(lines.some((l) => l.startsWith('Setup token'))).toBe(true);
      expect((await http(server.url, 'GET', '/api/setup')).body).toEqual({ required: true });
    } finally {
      await server.close();
    }
  });

  it('a damaged part that leaves the superuser in place changes nothing about setup', async () => {
    const dir = await crashedAfterSetup();
    const [segment] = segmentFiles(dir);
    const bytes = readFileSync(segment);
    const last = scanEntries(bytes).entries.at(-1)!;
    bytes[last.offset + 12] ^= 0xff;
    writeFileSync(segment, bytes);
    const server = await startServer({ dir, port: 0, uiDir: null, log: () => undefined });
    try {
      expect((await http(server.url, 'GET', '/api/setup')).body).toEqual({ required: false });
      expect((await http(server.url, 'POST', '/api/setup', { body: { token: 'x', email: 'a@b.co', password: 'a long password' } })).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
