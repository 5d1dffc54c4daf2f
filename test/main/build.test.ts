// `npm run build` into a folder outside the repository (so nothing resolves from node_modules), then:
// the built server serves the API and the UI; the built main process runs its whole life (start, window,
// IPC, quit) under Node against a fake `electron` module; electron-builder --dir packs it offline.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { osFreePort } from './net-helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let out: string;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'deskbase-build-'));
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--out', join(out, 'dist')], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}\n${build.stderr}`);
}, 120_000);

afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

/** A child process whose stdout is read line by line, with a way to wait for a line. */
function run(args: string[], env: Record<string, string | undefined> = process.env) {
  const child = spawn(process.execPath, args, { cwd: out, env, stdio: ['pipe', 'pipe', 'pipe'] }) as ChildProcessWithoutNullStreams;
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  const onData = (d: Buffer) => {
    buffer += d.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
    for (const w of waiters.splice(0)) w();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const waitFor = (test: (line: string) => boolean, ms = 15_000) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; output:\n${lines.join('\n')}`)), ms);
      const check = () => {
        const hit = lines.find(test);
        if (hit !== undefined) {
          clearTimeout(timer);
          resolve(hit);
        } else waiters.push(check);
      };
      check();
    });
  return { child, lines, waitFor, exited };
}

describe('npm run build', () => {
  it('writes the bundles, the wasm, the icon and the UI', () => {
    for (const file of ['main/index.cjs', 'main/preload.cjs', 'main/icon.png', 'main/sql-wasm.wasm', 'server/index.mjs', 'server/cli.mjs', 'server/sql-wasm.wasm', 'renderer/index.html']) {
      expect(existsSync(join(out, 'dist', file)), file).toBe(true);
    }
  });

  it.each(['main/index.cjs', 'main/preload.cjs', 'server/index.mjs', 'server/cli.mjs'])('%s needs no node_modules at run time but the sharp the build copies', (file) => {
    const code = readFileSync(join(out, 'dist', file), 'utf8');
    const required = [...code.matchAll(/\brequire\(\s*["']([^"'\s]+)["']\s*\)|\bfrom\s*["']([^"'\s]+)["']|\bimport\(\s*["']([^"'\s]+)["']\s*\)/g)]
      .map((m) => m[1] ?? m[2] ?? m[3]);
    expect(required.length).toBeGreaterThan(0);
    const builtins = new Set(builtinModules);
    const foreign = required.filter((name) => name !== 'electron' && name !== 'sharp' && !name.startsWith('node:') && !builtins.has(name) && !name.startsWith('./'));
    expect(foreign).toEqual([]);
  });

  it('copies sharp with this OS\'s binaries into dist/node_modules, where both bundles load it', () => {
    const made = spawnSync(process.execPath, ['-e', "require('sharp')({create:{width:2,height:2,channels:3,background:'red'}}).png().toBuffer().then(b=>console.log(b.length))"], { cwd: join(out, 'dist/main'), encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    expect(Number(made.stdout.trim())).toBeGreaterThan(0);
  });

  it('the built server serves the API and the Admin UI from outside the repository', async () => {
    const server = run([join(out, 'dist/server/cli.mjs'), '--dir', join(out, 'cli-data'), '--http', `127.0.0.1:${await osFreePort()}`]);
    try {
      const line = await server.waitFor((l) => l.includes('REST API: '));
      const base = /REST API: (http:\/\/[^/]+)\/api\//.exec(line)![1];
      expect((await fetch(`${base}/api/health`)).status).toBe(200);
      const ui = await fetch(`${base}/_/`);
      expect(ui.status).toBe(200);
      expect(ui.headers.get('content-type')).toMatch(/text\/html/);
      expect(ui.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
      const html = await ui.text();
      const script = /src="(\/_\/assets\/[^"]+\.js)"/.exec(html);
      expect(script).not.toBeNull();
      expect((await fetch(`${base}${script![1]}`)).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    expect(readdirSync(join(out, 'cli-data')).length).toBeGreaterThan(0);
  });
});

describe('the built main process, under Node with a fake electron', () => {
  type Fake = { type: string; [key: string]: unknown };
  const fakes = (lines: string[]): Fake[] => lines.filter((l) => l.startsWith('FAKE ')).map((l) => JSON.parse(l.slice(5)) as Fake);
  const isFake = (type: string, extra: (f: Fake) => boolean = () => true) => (line: string) =>
    line.startsWith('FAKE ') && ((f: Fake) => f.type === type && extra(f))(JSON.parse(line.slice(5)) as Fake);

  function launch(appData: string, extraEnv: Record<string, string> = {}) {
    const env = { ...process.env, FAKE_APPDATA: appData, ...extraEnv };
    return run(['--require', join(ROOT, 'test/main/fake-electron.cjs'), join(out, 'dist/main/index.cjs')], env);
  }

  it('starts the server on userData/data, opens the setup page, answers IPC, quits cleanly', async () => {
    const appData = join(out, 'appdata');
    await mkdir(appData, { recursive: true });
    const app = launch(appData);
    const send = (command: string) => app.child.stdin.write(`${command}\n`);
    try {
      const load = JSON.parse((await app.waitFor(isFake('load'))).slice(5)) as { url: string };
      const origin = new URL(load.url).origin;
      expect(load.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_\/#\/setup\?token=\S{43}$/);
      expect(app.lines.some((l) => l.includes('Setup token: '))).toBe(true);
      const all = fakes(app.lines);
      expect(all.find((f) => f.type === 'setPath')).toEqual({ type: 'setPath', name: 'userData', value: join(appData, 'Deskbase') });
      expect(all.find((f) => f.type === 'window')).toMatchObject({
        webPreferences: { contextIsolation: true, sandbox: true, nodeIntegration: false, preload: join(out, 'dist/main/preload.cjs') },
        iconExists: true,
      });
      expect(all.find((f) => f.type === 'tray-menu')).toEqual({ type: 'tray-menu', ids: ['open-ui', 'copy-api-url', 'open-data-folder', 'lan', 'quit'] });
      expect((await fetch(`${origin}/_/`)).status).toBe(200);

      send(`invoke deskbase:lan-get ${origin}/_/ []`);
      expect(JSON.parse((await app.waitFor(isFake('result'))).slice(5))).toEqual({
        type: 'result', channel: 'deskbase:lan-get', result: { enabled: false, urls: [], qr: null },
      });
      send('invoke deskbase:lan-set https://evil.example/ [true]');
      await app.waitFor(isFake('result', (f) => typeof f.error === 'string' && f.error.includes('only available to the Deskbase window')));
      send(`invoke deskbase:lan-set ${origin}/_/ [true]`);
      await app.waitFor(isFake('send', (f) => f.channel === 'deskbase:lan-changed'));
      expect(JSON.parse(readFileSync(join(appData, 'Deskbase', 'settings.json'), 'utf8'))).toEqual({ lan: true });
      send(`invoke deskbase:open-data-folder ${origin}/_/ []`);
      await app.waitFor(isFake('openPath', (f) => f.path === join(appData, 'Deskbase', 'data')));

      send('second-instance');
      await app.waitFor(isFake('focus'));

      send('quit');
      await app.waitFor(isFake('exit'));
      expect(await app.exited).toBe(0);
      const end = fakes(app.lines);
      expect(end.filter((f) => f.type === 'quit')).toEqual([{ type: 'quit', prevented: true }]);
      expect(end.filter((f) => f.type === 'exit')).toEqual([{ type: 'exit', code: 0 }]);
      expect(readdirSync(join(appData, 'Deskbase', 'data')).length).toBeGreaterThan(0);
    } finally {
      app.child.kill('SIGKILL');
    }

    // The next start remembers LAN sharing.
    const again = launch(appData);
    try {
      const load = JSON.parse((await again.waitFor(isFake('load'))).slice(5)) as { url: string };
      again.child.stdin.write(`invoke deskbase:lan-get ${new URL(load.url).origin}/_/ []\n`);
      const result = JSON.parse((await again.waitFor(isFake('result'))).slice(5)) as { result: { enabled: boolean } };
      expect(result.result.enabled).toBe(true);
      again.child.stdin.write('close-window\n');
      await again.waitFor(isFake('exit'));
      expect(await again.exited).toBe(0);
    } finally {
      again.child.kill('SIGKILL');
    }
  });

  it('a second launch leaves at once, without starting a server', async () => {
    const appData = join(out, 'appdata-locked');
    await mkdir(appData, { recursive: true });
    const app = launch(appData, { FAKE_LOCKED: '1' });
    await app.waitFor(isFake('quit'));
    expect(await app.exited).toBe(0);
    expect(fakes(app.lines).some((f) => f.type === 'window')).toBe(false);
    expect(existsSync(join(appData, 'Deskbase', 'data'))).toBe(false);
  });

  it('checkpoints and exits when the OS shuts down', async () => {
    const appData = join(out, 'appdata-shutdown');
    await mkdir(appData, { recursive: true });
    const app = launch(appData);
    try {
      await app.waitFor(isFake('load'));
      app.child.stdin.write('os-shutdown\n');
      await app.waitFor(isFake('shutdown-delayed'));
      await app.waitFor(isFake('exit'));
      expect(await app.exited).toBe(0);
    } finally {
      app.child.kill('SIGKILL');
    }
  });
});

describe('electron-builder --dir, offline', () => {
  it('packs app.asar with the bundles and no node_modules but sharp, unpacked, using a stub Electron', async () => {
    const stub = join(out, 'electron-stub');
    await mkdir(join(stub, 'resources'), { recursive: true });
    await writeFile(join(stub, 'electron'), '#!/bin/sh\n', { mode: 0o755 });
    await writeFile(join(stub, 'LICENSE'), '');
    // electron-builder packs the project directory; point it at a copy whose dist/ is the one just built.
    const project = join(out, 'project');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'package.json'), readFileSync(join(ROOT, 'package.json')));
    spawnSync('cp', ['-r', join(out, 'dist'), join(project, 'dist')]);
    spawnSync('cp', ['-r', join(ROOT, 'build'), join(project, 'build')]);
    spawnSync('ln', ['-s', join(ROOT, 'node_modules'), join(project, 'node_modules')]);
    const cli = join(ROOT, 'node_modules/electron-builder/cli.js');
    const result = spawnSync(process.execPath, [
      cli, '--dir', '--linux', '--projectDir', project, '--config', join(ROOT, 'electron-builder.yml'),
      `-c.electronDist=${stub}`, `-c.directories.output=${join(out, 'release')}`,
    ], { cwd: project, encoding: 'utf8', timeout: 120_000 });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    const asarFile = join(out, 'release/linux-unpacked/resources/app.asar');
    expect(existsSync(asarFile)).toBe(true);
    const { listPackage } = (await import('@electron/asar')) as { listPackage(path: string, options: object): string[] };
    const files = listPackage(asarFile, {}).map((f) => f.replaceAll('\\', '/'));
    for (const f of ['/package.json', '/dist/main/index.cjs', '/dist/main/preload.cjs', '/dist/main/icon.png', '/dist/main/sql-wasm.wasm', '/dist/renderer/index.html']) {
      expect(files).toContain(f);
    }
    expect(files.some((f) => f.startsWith('/node_modules') || f.startsWith('/dist/server'))).toBe(false);
    // the native module sits outside the archive, where the OS can load it
    const unpacked = join(out, 'release/linux-unpacked/resources/app.asar.unpacked/dist/node_modules');
    expect(existsSync(join(unpacked, 'sharp/package.json'))).toBe(true);
    expect(readdirSync(join(unpacked, '@img')).some((n) => n.startsWith('sharp-libvips-'))).toBe(true);
    expect(existsSync(join(out, 'release/linux-unpacked/deskbase'))).toBe(true);
  }, 150_000);
});
