// A disk that refuses writes: a full disk (a real ENOSPC on a 4 MiB tmpfs when this machine lets root
// mount one; otherwise, and in any case, a file-size limit: `ulimit -f` gives EFBIG), a read-only data
// folder (`chattr +i` on the folder and its files: root ignores permission bits but not the immutable
// flag, and EROFS needs a remount that Linux refuses while the journal is open for writing).
// Writes fail with a 503 in the spec's envelope, reads go on, nothing acknowledged is lost, nothing
// refused appears, and writes work again once the disk takes them.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { bundle, runChild, type Child } from '../fixtures/hardening-child.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterAll(async () => {
  for (const f of cleanups.reverse()) await f();
});
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const quiet = () => undefined;
const DISK_MESSAGE = 'The data folder cannot be written to right now (disk full or read-only). Nothing was changed.';

/** A server in this process with an open `blobs` collection; returns it and the superuser token. */
async function serve(dir: string, lines: string[] = []): Promise<{ server: RunningServer; su: string }> {
  const server = await startServer({ dir, port: 0, uiDir: null, log: (l) => void lines.push(l), store: { checkpointBytes: 128 * 1024, onBackgroundError: quiet } });
  const token = (await server.setupToken());
  const su = token
    ? await setupSuperuser(server.url, token)
    : (await http(server.url, 'POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'admin@example.com', password: 'correct horse' } })).body.token;
  if (token) {
    const r = await http(server.url, 'POST', '/api/collections', {
      token: su, body: { name: 'blobs', fields: [{ name: 'key', type: 'text' }, { name: 'data', type: 'text', max: 100000 }], listRule: '', viewRule: '', createRule: '' },
    });
    expect(r.status, r.text).toBe(200);
  }
  return { server, su };
}

const blob = (key: string) => ({ key, data: `${key}:`.padEnd(20_000, 'x') });

async function storedKeys(url: string): Promise<string[]> {
  const r = await http(url, 'GET', '/api/collections/blobs/records?perPage=1000&fields=key');
  expect(r.status, r.text).toBe(200);
  return (r.body.items as { key: string }[]).map((i) => i.key).sort();
}

function expectDiskError(r: { status: number; body: unknown }): void {
  expect(r.status).toBe(503);
  expect(r.body).toEqual({ status: 503, message: DISK_MESSAGE, data: {} });
}

/** Writes blobs one at a time until the disk refuses one (a 503); returns the acknowledged keys. */
async function fillUntilRefused(url: string, prefix: string, max = 400): Promise<string[]> {
  const acked: string[] = [];
  for (let i = 0; i < max; i++) {
    const r = await http(url, 'POST', '/api/collections/blobs/records', { body: blob(`${prefix}${i}`) });
    if (r.status === 200) {
      acked.push(`${prefix}${i}`);
      continue;
    }
    expectDiskError(r);
    return acked;
  }
  throw new Error(`the disk never filled up after ${max} writes`);
}

/** Writes one blob, trying again for up to 3 s while the disk still refuses it. */
async function untilWritten(url: string, key: string): Promise<{ status: number; text: string }> {
  for (let waited = 0; ; waited += 100) {
    const r = await http(url, 'POST', '/api/collections/blobs/records', { body: blob(key) });
    if (r.status !== 503 || waited >= 3000) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const canMount = (() => {
  if (process.platform !== 'linux') return false;
  const probe = mkdtempSync(join(tmpdir(), 'deskbase-mount-probe-'));
  const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status === 0;
  if (ok) spawnSync('umount', [probe]);
  rmSync(probe, { recursive: true, force: true });
  return ok;
})();

const canChattr = (() => {
  if (process.platform !== 'linux') return false;
  const probe = mkdtempSync(join(tmpdir(), 'deskbase-chattr-probe-'));
  const ok = spawnSync('chattr', ['+i', probe]).status === 0;
  if (ok) spawnSync('chattr', ['-i', probe]);
  rmSync(probe, { recursive: true, force: true });
  return ok;
})();

describe('a full disk', () => {
  it.skipIf(!canMount)('ENOSPC on a tmpfs: 503, no loss, writes work again once space returns', async () => {
    const mnt = mkdtempSync(join(tmpdir(), 'deskbase-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt]);
    cleanups.push(() => {
      spawnSync('umount', ['-l', mnt]);
      rmSync(mnt, { recursive: true, force: true });
    });
    writeFileSync(join(mnt, 'ballast'), Buffer.alloc(2 * 1024 * 1024)); // freed later: "space returns"
    const dir = join(mnt, 'data');
    const lines: string[] = [];
    let { server } = await serve(dir, lines);
    try {
      const acked = await fillUntilRefused(server.url, 'a');
      expect(acked.length).toBeGreaterThan(10);
      // reads go on and show exactly what was acknowledged, not the refused write
      expect(await storedKeys(server.url)).toEqual([...acked].sort());
      expect((await http(server.url, 'GET', '/api/health')).status).toBe(200);
      expect(lines.some((l) => l.includes('ENOSPC'))).toBe(true);

      rmSync(join(mnt, 'ballast'));
      const more = await untilWritten(server.url, 'after');
      expect(more.status, more.text).toBe(200);
      await server.close();
      ({ server } = await serve(dir));
      expect(await storedKeys(server.url)).toEqual([...acked, 'after'].sort());
    } finally {
      await server.close().catch(() => undefined); // a failed test may leave the disk full: closing cannot checkpoint
    }
  });

  it('EFBIG under a file-size limit (ulimit -f): 503, no loss, reopens without the limit', async () => {
    const dir = tempDir('deskbase-efbig-');
    const script = await bundle('test/fixtures/hardening-server.ts');
    const child: Child = runChild(script, [dir, String(64 * 1024 * 1024)], { fileSizeLimitKiB: 1024 });
    cleanups.push(() => child.kill());
    const url = (await child.line((l) => l.startsWith('url '))).slice(4);
    const su = await setupSuperuser(url, (await child.line((l) => l.startsWith('setup '))).slice(6));
    await http(url, 'POST', '/api/collections', {
      token: su, body: { name: 'blobs', fields: [{ name: 'key', type: 'text' }, { name: 'data', type: 'text', max: 100000 }], listRule: '', viewRule: '', createRule: '' },
    });
    const acked = await fillUntilRefused(url, 'b');
    expect(acked.length).toBeGreaterThan(10);
    expect(await storedKeys(url)).toEqual([...acked].sort());
    await child.kill();
    const { server } = await serve(dir);
    try {
      expect(await storedKeys(server.url)).toEqual([...acked].sort());
    } finally {
      await server.close();
    }
  });
});

describe('a read-only data folder', () => {
  it.skipIf(!canChattr)('refuses writes with a 503 while the folder is immutable, and recovers when it is writable again', async () => {
    const dir = tempDir('deskbase-ro-');
    // the lock is a socket file in the folder: chattr refuses special files, and a socket takes no writes anyway
    const setImmutable = (on: boolean) => execFileSync('chattr', [on ? '+i' : '-i', dir, ...readdirSync(dir).filter((n) => n !== 'deskbase.lock').map((n) => join(dir, n))]);
    cleanups.push(() => void spawnSync('chattr', ['-R', '-i', dir]));
    let { server } = await serve(dir);
    try {
      const before = ['r1', 'r2', 'r3'];
      for (const key of before) expect((await http(server.url, 'POST', '/api/collections/blobs/records', { body: blob(key) })).status).toBe(200);
      setImmutable(true);
      for (let i = 0; i < 3; i++) expectDiskError(await http(server.url, 'POST', '/api/collections/blobs/records', { body: blob(`no${i}`) }));
      expect(await storedKeys(server.url)).toEqual(before);
      setImmutable(false);
      // the stopped store tries again at most once a second
      const after = await untilWritten(server.url, 'r4');
      expect(after.status, after.text).toBe(200);
      await server.close();
      ({ server } = await serve(dir));
      expect(await storedKeys(server.url)).toEqual([...before, 'r4']);
    } finally {
      setImmutable(false);
      await server.close();
    }
  });
});
