// The data folder's lock is a listening socket the operating system closes when its process ends: a
// folder opens again at once after kill -9, even while the dead server is a zombie nobody has reaped,
// and a lock file naming some live process (a pid reused after a reboot) blocks nothing. Two live
// servers on one folder are still refused, with a message naming the folder. Real child processes.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { lockDir, LOCK_FILE } from '../../server/store/lock.js';
import { bundle, runChild, type Child } from '../fixtures/hardening-child.js';

const made: string[] = [];
const running: Child[] = [];
afterAll(async () => {
  for (const c of running) await c.kill();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'deskbase-lock-'));
  made.push(dir);
  return dir;
}

/** A server in a child process on `dir`: resolves with its url, or rejects with the reason it gave up. */
async function serve(dir: string): Promise<{ child: Child; url: string }> {
  const child = runChild(await bundle('test/fixtures/hardening-server.ts'), [dir, String(1 << 20)]);
  running.push(child);
  const line = await child.line((l) => l.startsWith('url ') || l.startsWith('failed '));
  if (line.startsWith('failed ')) throw new Error(line.slice(7));
  return { child, url: line.slice(4) };
}

const health = async (url: string) => (await fetch(`${url}/api/health`)).status;

describe('one server per data folder, decided by the OS', () => {
  it('a second live server is refused with a message naming the folder and the holder', async () => {
    const dir = folder();
    const first = await serve(dir);
    await expect(serve(dir)).rejects.toThrow(`the data folder ${dir} is in use by another Deskbase (process ${first.child.proc.pid})`);
    expect(await health(first.url)).toBe(200);
  });

  it('after kill -9 the folder opens at once, again and again', async () => {
    const dir = folder();
    for (let i = 0; i < 5; i++) {
      const { child, url } = await serve(dir);
      expect(await health(url)).toBe(200);
      await child.kill(); // SIGKILL; resolves as soon as the process is gone
    }
    const last = await serve(dir);
    expect(await health(last.url)).toBe(200);
  });

  it.runIf(process.platform === 'linux')('a killed server left a zombie (its parent never reaps it): the folder opens', async () => {
    const dir = folder();
    const script = await bundle('test/fixtures/hardening-server.ts');
    // bash starts the server, then becomes `sleep`, which never waits for its child
    const parent = spawn('bash', ['-c', `"$0" "$1" "$2" "$3" & echo "pid $!"; exec sleep 60`, process.execPath, script, dir, String(1 << 20)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: string[] = [];
    const seen = new Promise<void>((resolve) => createInterface({ input: parent.stdout! }).on('line', (l) => {
      lines.push(l);
      if (lines.some((x) => x.startsWith('pid ')) && lines.some((x) => x.startsWith('url '))) resolve();
    }));
    try {
      await seen;
      const pid = Number(lines.find((l) => l.startsWith('pid '))!.slice(4));
      process.kill(pid, 'SIGKILL');
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
      for (let i = 0; i < 200 && state() !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(state()).toBe('Z'); // dead, unreaped: `kill -0` still finds it
      const next = await serve(dir);
      expect(await health(next.url)).toBe(200);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('a lock file naming a live process (a reused pid) blocks nothing', async () => {
    const dir = folder();
    writeFileSync(join(dir, LOCK_FILE), `${process.pid} 0123456789abcdef\n`);
    const { url } = await serve(dir);
    expect(await health(url)).toBe(200);
  });
});

describe('the socket file in the folder', () => {
  it('a stale socket file left by a killed process is taken over; a live one refuses', async () => {
    const dir = folder();
    const address = join(dir, LOCK_FILE);
    const holder = spawn(process.execPath, ['-e', "require('net').createServer((s) => s.end('4242\\n')).listen(process.argv[1], () => console.log('ready'))", address], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => holder.stdout!.once('data', resolve));
    await expect(lockDir(dir)).rejects.toThrow(`the data folder ${dir} is in use by another Deskbase (process 4242)`);
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    const lock = await lockDir(dir); // the socket file is still there, nobody answers
    await expect(lockDir(dir)).rejects.toThrow(/is in use by another Deskbase \(process \d+\)/);
    await lock.release();
    expect(readdirSync(dir)).toEqual([]); // no name left behind, ours or unique
    await (await lockDir(dir)).release();
  });

  it('a folder path too long for a socket address still locks with the socket file inside it', async () => {
    const dir = join(folder(), 'a-rather-long-folder-name-'.repeat(5));
    mkdirSync(dir);
    const lock = await lockDir(dir);
    expect(statSync(join(dir, LOCK_FILE)).isSocket()).toBe(true);
    await expect(lockDir(dir)).rejects.toThrow(`the data folder ${dir} is in use`);
    await lock.release();
    await (await lockDir(dir)).release();
  });

  it('servers racing to replace one stale socket file: exactly one holds the folder', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = folder();
      const stale = spawn(process.execPath, ['-e', "require('net').createServer().listen(process.argv[1], () => console.log('ready'))", join(dir, LOCK_FILE)], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise((resolve) => stale.stdout!.once('data', resolve));
      stale.kill('SIGKILL');
      await new Promise((resolve) => stale.once('exit', resolve));
      const results = await Promise.allSettled([lockDir(dir), lockDir(dir), lockDir(dir), lockDir(dir)]);
      const held = results.filter((r) => r.status === 'fulfilled');
      expect(held).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(String(r.reason)).toMatch(/is in use by another Deskbase/);
      await (held[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
    }
  });
});

describe('F12: what used to get around the lock, or hold it from outside', () => {
  it('renaming the folder while its server runs: a server on the new name is refused', async () => {
    const dir = folder();
    const first = await serve(dir);
    const moved = `${dir}-moved`;
    renameSync(dir, moved);
    made.push(moved);
    await expect(serve(moved)).rejects.toThrow(`the data folder ${moved} is in use by another Deskbase (process ${first.child.proc.pid})`);
  });

  it.runIf(process.platform === 'linux')('a local user holding the name the lock used to take (abstract, from the path) blocks nothing', async () => {
    const dir = folder();
    const old = `\0deskbase-${createHash('sha256').update(realpathSync(dir)).digest('hex').slice(0, 32)}`;
    const squatter = createServer((s) => s.end('1\n'));
    await new Promise<void>((resolve) => squatter.listen(old, resolve));
    try {
      const { url } = await serve(dir);
      expect(await health(url)).toBe(200);
    } finally {
      squatter.close();
    }
  });

  const canUnshare = process.platform === 'linux' && spawnSync('unshare', ['-n', 'true']).status === 0;
  it.runIf(canUnshare)('a server in another network namespace (containers, Flatpak, Snap) is refused', async () => {
    const dir = folder();
    const first = await serve(dir);
    const script = await bundle('test/fixtures/hardening-server.ts');
    const other = spawn('unshare', ['-n', process.execPath, script, dir, String(1 << 20)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => createInterface({ input: other.stdout! }).on('line', (l) => {
      if (l.startsWith('url ') || l.startsWith('failed ')) resolve(l);
    }));
    other.kill('SIGKILL');
    expect(line).toContain(`the data folder ${dir} is in use by another Deskbase (process ${first.child.proc.pid})`);
  });
});
