// A damaged data folder is refused at start, through the CLI, with a message naming the file, and the
// files are left exactly as they were (never silently replaced by an empty database).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.js';
import { ROOT } from '../fixtures/hardening-child.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A healthy data folder, closed cleanly: a snapshot, an empty journal segment naming it. */
let healthy: string;
beforeAll(async () => {
  healthy = mkdtempSync(join(tmpdir(), 'deskbase-start-'));
  made.push(healthy);
  const server = await startServer({ dir: healthy, port: 0, uiDir: null, log: () => undefined });
  const su = await setupSuperuser(server.url, (await server.setupToken())!);
  await http(server.url, 'POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 'text', type: 'text' }], listRule: '' } });
  for (let i = 0; i < 50; i++) await http(server.url, 'POST', '/api/collections/notes/records', { token: su, body: { text: `note ${i} `.repeat(50) } });
  await server.close();
});

function damagedCopy(damage: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'deskbase-damaged-'));
  made.push(dir);
  // the data's files (the logs' own folder, logs/, is no part of what is damaged here)
  for (const e of readdirSync(healthy, { withFileTypes: true })) if (e.isFile()) writeFileSync(join(dir, e.name), readFileSync(join(healthy, e.name)));
  damage(dir);
  return dir;
}

const snapshot = (dir: string) => readFileSync(join(dir, 'data.db'));
const listing = (dir: string) => Object.fromEntries(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n)).toString('base64')]));

/** Runs the CLI on `dir` as a user would (tsx), with a port that needs no privileges. */
function cli(dir: string): { status: number | null; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'server/cli.ts'), '--dir', dir, '--http', '127.0.0.1:0'], { cwd: ROOT, timeout: 20_000, encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('the CLI refuses a damaged data folder', () => {
  it.each([
    ['a snapshot that is not SQLite at all', (dir: string) => writeFileSync(join(dir, 'data.db'), 'this is not a database, just text '.repeat(100)), /data\.db is not a SQLite database/],
    ['a snapshot cut in half', (dir: string) => truncateSync(join(dir, 'data.db'), Math.floor(snapshot(dir).length / 2)), /data\.db/],
    ['a snapshot with a flipped byte in a page', (dir: string) => {
      const bytes = snapshot(dir);
      bytes[bytes.length - 300] ^= 0xff;
      writeFileSync(join(dir, 'data.db'), bytes);
    }, /data\.db/],
    ['an empty snapshot file', (dir: string) => writeFileSync(join(dir, 'data.db'), ''), /data\.db/],
  ])('%s: exit code 1, a message naming data.db, nothing changed', (_name, damage, message) => {
    const dir = damagedCopy(damage);
    const before = listing(dir);
    const r = cli(dir);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^Deskbase could not start: /);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).not.toContain('Deskbase is running');
    expect(listing(dir)).toEqual(before);
    expect(existsSync(join(dir, 'deskbase.lock'))).toBe(false);
  });

  it('a healthy copy starts (the damage above is what refuses)', async () => {
    const dir = damagedCopy(() => undefined);
    const server = await startServer({ dir, port: 0, uiDir: null, log: () => undefined });
    try {
      expect((await http(server.url, 'GET', '/api/collections/notes/records?perPage=1')).body.totalItems).toBe(50);
    } finally {
      await server.close();
    }
  });
});
