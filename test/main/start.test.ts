// `npm start` (scripts/start.mjs): when Electron cannot start it says why in one sentence and serves
// headless. The decision is a plain function (scripts/start-lib.mjs); the fallback runs for real.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { electronAvailability, failedAtLaunch, headlessNotice } from '../../scripts/start-lib.mjs';
import { osFreePort } from './net-helpers.js';

const E = '/repo/node_modules/electron';

function probe(files: Record<string, string>, platform = 'linux') {
  return {
    exists: (path: string) => path in files,
    read: (path: string) => files[path] ?? null,
    platform,
    electronDir: E,
  };
}

const installed = { [`${E}/package.json`]: '{}', [`${E}/path.txt`]: 'electron', [`${E}/dist/electron`]: '' };
const display = { DISPLAY: ':0' };

interface Row {
  name: string;
  env: Record<string, string>;
  files: Record<string, string>;
  platform: string;
  ok?: true;
  reason?: RegExp;
  downloadable?: boolean;
}

describe('electronAvailability', () => {
  it.each<Row>([
    { name: 'installed, X11 display', env: display, files: installed, platform: 'linux', ok: true },
    { name: 'installed, Wayland display', env: { WAYLAND_DISPLAY: 'wayland-0' }, files: installed, platform: 'linux', ok: true },
    { name: 'macOS needs no DISPLAY', env: {}, files: { ...installed, [`${E}/path.txt`]: 'Electron.app/Contents/MacOS/Electron', [`${E}/dist/Electron.app/Contents/MacOS/Electron`]: '' }, platform: 'darwin', ok: true },
    { name: 'Windows needs no DISPLAY', env: {}, files: { ...installed, [`${E}/path.txt`]: 'electron.exe', [`${E}/dist/electron.exe`]: '' }, platform: 'win32', ok: true },
    { name: 'override dist path', env: { ...display, ELECTRON_OVERRIDE_DIST_PATH: '/opt/electron' }, files: { [`${E}/package.json`]: '{}', '/opt/electron/electron': '' }, platform: 'linux', ok: true },
    { name: 'no electron package', env: display, files: {}, platform: 'linux', reason: /electron package is not installed/, downloadable: false },
    { name: 'binary never downloaded', env: display, files: { [`${E}/package.json`]: '{}' }, platform: 'linux', reason: /never downloaded \(node_modules\/electron\/path\.txt is missing\)/, downloadable: true },
    { name: 'binary deleted', env: display, files: { [`${E}/package.json`]: '{}', [`${E}/path.txt`]: 'electron' }, platform: 'linux', reason: /binary is missing \(.*dist\/electron does not exist\)/, downloadable: true },
    { name: 'override to nowhere', env: { ...display, ELECTRON_OVERRIDE_DIST_PATH: '/nowhere' }, files: installed, platform: 'linux', reason: /\/nowhere\/electron does not exist/, downloadable: false },
    { name: 'no display on Linux', env: {}, files: installed, platform: 'linux', reason: /no display .*neither DISPLAY nor WAYLAND_DISPLAY/, downloadable: false },
    { name: 'no display and no binary: no download', env: {}, files: { [`${E}/package.json`]: '{}' }, platform: 'linux', reason: /no display/, downloadable: false },
    { name: 'empty DISPLAY', env: { DISPLAY: '' }, files: installed, platform: 'linux', reason: /no display/, downloadable: false },
    { name: 'asked for headless', env: { ...display, DESKBASE_HEADLESS: '1' }, files: installed, platform: 'linux', reason: /DESKBASE_HEADLESS/, downloadable: false },
  ])('$name', ({ env, files, platform, ok, reason, downloadable }) => {
    const result = electronAvailability(env, probe(files, platform));
    if (ok) expect(result.ok).toBe(true);
    else expect(result).toEqual({ ok: false, reason: expect.stringMatching(reason!), downloadable });
  });

  it('names the binary to launch', () => {
    expect(electronAvailability(display, probe(installed))).toEqual({ ok: true, binary: join(E, 'dist', 'electron') });
  });
});

describe('headlessNotice and failedAtLaunch', () => {
  it('is one sentence that names the cause and what happens instead', () => {
    const text = headlessNotice('there is no display');
    expect(text).toMatch(/^There is no display, so Deskbase runs without its desktop window: open the Admin UI address below in a browser\.$/);
    expect(text.match(/\./g)).toHaveLength(1);
  });

  it.each([
    { code: 1, ms: 500, failed: true },
    { code: 127, ms: 9_000, failed: true },
    { code: 1, ms: 60_000, failed: false },
    { code: 0, ms: 500, failed: false },
    { code: null, ms: 500, failed: false },
  ])('exit $code after $ms ms → fall back: $failed', ({ code, ms, failed }) => {
    expect(failedAtLaunch(code, ms)).toBe(failed);
  });
});

describe('npm start without Electron', () => {
  it('says why in one sentence and serves the API headless', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deskbase-start-'));
    const env: Record<string, string | undefined> = {
      ...process.env, ELECTRON_OVERRIDE_DIST_PATH: join(dir, 'no-electron-here'), DESKBASE_SKIP_UI_BUILD: '1', DESKBASE_NO_DOWNLOAD: '1',
    };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    delete env.DESKBASE_HEADLESS;
    const child = spawn(process.execPath, ['scripts/start.mjs', '--dir', join(dir, 'data'), '--http', `127.0.0.1:${await osFreePort()}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const api = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed:\n${out}`)), 20_000);
        child.stdout.on('data', () => {
          const m = /REST API: (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      const firstLine = out.split('\n')[0];
      // Linux without a display says so; elsewhere the binary pointed at by ELECTRON_OVERRIDE_DIST_PATH is missing.
      expect(firstLine).toMatch(/^(There is no display|Electron's binary is missing) .*, so Deskbase runs without its desktop window: open the Admin UI address below in a browser\.$/);
      expect(out).toMatch(/Setup token: \S{43}/);
      expect(out).toMatch(/Admin UI: http:\/\/127\.0\.0\.1:\d+\/_\//);
      const res = await fetch(`${api}health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ok' });
    } finally {
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    }
    expect(out).toMatch(/saving and stopping/);
  });
});
