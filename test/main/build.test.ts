// `npm run build` into a folder outside the repository (so nothing resolves from node_modules), then:
// the built server serves the API and the UI; the built main process runs its whole life (start, window,
// IPC, quit) under Node against a fake `electron` module; electron-builder --dir packs it offline.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeListener, occupy, osFreePort } from './net-helpers.js';

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
    for (const file of ['main/index.cjs', 'main/preload.cjs', 'main/icon.png', 'main/sql-wasm.wasm', 'main/worker/main.cjs', 'server/index.mjs', 'server/cli.mjs', 'server/sql-wasm.wasm', 'server/worker/main.cjs', 'renderer/index.html']) {
      expect(existsSync(join(out, 'dist', file)), file).toBe(true);
    }
  });

  it.each(['main/index.cjs', 'main/preload.cjs', 'server/index.mjs', 'server/cli.mjs'])('%s needs no node_modules at run time but the sharp the build copies', (file) => {
    const code = readFileSync(join(out, 'dist', file), 'utf8');
    const required = [...code.matchAll(/\brequire\(\s*["']([^"'\s]+)["']\s*\)|\bfrom\s*["']([^"'\s]+)["']|\bimport\(\s*["']([^"'\s]+)["']\s*\)/g)]
      .map((m) => m[1] ?? m[2] ?? m[3])
      // words in log messages such as `downloading it from "${url}"` are not imports
      .filter((name) => !name.startsWith('${'))
      // `Buffer.from("\ufeff")` (csv-parse's BOM) matches `from "…"`; a module specifier is a name or a path
      .filter((name) => /^[@./\w]/.test(name));
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

  it('a build for another OS or architecture names the native binaries it lacks and how to install them', () => {
    const other = process.arch === 'arm64' ? 'x64' : 'arm64';
    const target = `${process.platform}-${other}`;
    const build = spawnSync(process.execPath, ['scripts/build.mjs', '--out', join(out, 'other-dist'), '--no-renderer', '--targets', target], { cwd: ROOT, encoding: 'utf8' });
    expect(build.status).toBe(1);
    expect(build.stderr).toContain(`the native binaries for ${target} are not installed: `);
    expect(build.stderr).toMatch(new RegExp(`npm install --no-save --force .*@img/sharp-${target}@\\S+`));
    const bad = spawnSync(process.execPath, ['scripts/build.mjs', '--targets', 'macos'], { cwd: ROOT, encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--targets takes OS-arch pairs/);
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

describe('the built server with pb_hooks', () => {
  it('loads the bundled hooks worker and runs a hook file, require() included', async () => {
    const hooks = join(out, 'pb_hooks');
    mkdirSync(join(hooks, 'lib'), { recursive: true });
    writeFileSync(join(hooks, 'lib', 'mark.js'), 'module.exports = (text) => "hooks: " + text;');
    writeFileSync(join(hooks, 'boot.pb.js'), 'onBootstrap((e) => { e.next(); $os.writeFile("booted.txt", require("./lib/mark")("ran")); });');
    const server = run([join(out, 'dist/server/cli.mjs'), '--dir', join(out, 'hooks-data'), '--hooks', hooks, '--http', `127.0.0.1:${await osFreePort()}`]);
    try {
      expect(await server.waitFor((l) => l.includes('Hooks: '))).toContain('(1 handlers)');
      expect(readFileSync(join(hooks, 'booted.txt'), 'utf8')).toBe('hooks: ran');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe('the built server with pb_migrations', () => {
  it('applies a migration file on the bundled hooks worker at start', async () => {
    const migrations = join(out, 'pb_migrations');
    mkdirSync(migrations, { recursive: true });
    writeFileSync(join(migrations, '1700000000_tags.js'), 'migrate((app) => { const c = new Collection({ name: "tags", type: "base" }); c.fields.add(new TextField({ name: "label" })); app.save(c); });');
    const server = run([join(out, 'dist/server/cli.mjs'), '--dir', join(out, 'migrations-data'), '--migrations', migrations, '--http', `127.0.0.1:${await osFreePort()}`]);
    try {
      expect(await server.waitFor((l) => l.includes('Applied '))).toContain('Applied 1700000000_tags.js');
      await server.waitFor((l) => l.includes('Deskbase is running.'));
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
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
      expect(all.filter((f) => f.type === 'tray-menu').at(-1)).toEqual({
        type: 'tray-menu', ids: ['open-ui', 'copy-api-url', 'open-data-folder', 'open-logs-folder', 'open-hooks-folder', 'open-migrations-folder', 'lan', 'keep-running', 'open-at-login', 'quit'],
      });
      expect(all.find((f) => f.type === 'crash-reporter')).toEqual({ type: 'crash-reporter', options: { uploadToServer: false, compress: true } });
      expect((await fetch(`${origin}/_/`)).status).toBe(200);

      send(`invoke deskbase:lan-get ${origin}/_/ []`);
      expect(JSON.parse((await app.waitFor(isFake('result'))).slice(5))).toEqual({
        type: 'result', channel: 'deskbase:lan-get', result: { enabled: false, urls: [], qr: null, tls: null },
      });
      send('invoke deskbase:lan-set https://evil.example/ [true]');
      await app.waitFor(isFake('result', (f) => typeof f.error === 'string' && f.error.includes('only available to the Deskbase window')));
      send(`invoke deskbase:lan-set ${origin}/_/ [true]`);
      await app.waitFor(isFake('send', (f) => f.channel === 'deskbase:lan-changed'));
      expect(JSON.parse(readFileSync(join(appData, 'Deskbase', 'settings.json'), 'utf8'))).toMatchObject({ lan: true });
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
      // Background mode (on by default where there is a tray): closing the window keeps the server.
      again.child.stdin.write('close-window\n');
      await again.waitFor(isFake('closed'));
      expect((await fetch(`${new URL(load.url).origin}/api/health`)).status).toBe(200);
      expect(fakes(again.lines).some((f) => f.type === 'exit')).toBe(false);
      // "Quit" in the tray stops it, with the checkpoint.
      again.child.stdin.write('tray-click quit\n');
      await again.waitFor(isFake('exit'));
      expect(await again.exited).toBe(0);
      expect(fakes(again.lines).filter((f) => f.type === 'quit')).toEqual([{ type: 'quit', prevented: true }]);
    } finally {
      again.child.kill('SIGKILL');
    }
  });

  it('logs to a file, recovers a crashed or hung window, asks before quitting over an unsaved edit, remembers the window', async () => {
    const appData = join(out, 'appdata-care');
    await mkdir(appData, { recursive: true });
    const app = launch(appData);
    const send = (command: string) => app.child.stdin.write(`${command}\n`);
    const logFile = join(appData, 'Deskbase', 'logs', 'main.log');
    try {
      const load = JSON.parse((await app.waitFor(isFake('load'))).slice(5)) as { url: string };
      const count = (type: string) => fakes(app.lines).filter((f) => f.type === type).length;

      // The window's renderer crashed: reloaded at the page it showed.
      send('renderer-gone');
      await app.waitFor(() => count('load') === 2);
      expect(fakes(app.lines).filter((f) => f.type === 'load').at(-1)).toEqual({ type: 'load', url: load.url });

      // Hung: a dialog, closed by itself when the page answers again.
      send('hang');
      await app.waitFor(isFake('dialog', (f) => f.message === 'The Deskbase window is not responding.'));
      send('respond');
      await app.waitFor(isFake('dialog-closed'));

      // Failed to load: Try Again loads it again.
      send('fail-load');
      await app.waitFor(isFake('dialog', (f) => f.message === 'Deskbase could not load its window.'));
      send('answer 0');
      await app.waitFor(() => count('load') === 3);

      // The window is moved; an uncaught exception in the main process is logged and explained.
      send('move 40 30 1000 700');
      send('throw');
      await app.waitFor(isFake('dialog', (f) => f.message === 'Deskbase ran into an unexpected error.'));
      send('answer 0');

      // Quit with an unsaved edit: the window asks; Keep Editing calls the quit off, the server stays.
      send('hold-unload');
      send('tray-click quit');
      await app.waitFor(isFake('dialog', (f) => f.message === 'Close the window without saving?'));
      send('answer 1');
      await app.waitFor(isFake('quit-called-off'));
      expect((await fetch(`${new URL(load.url).origin}/api/health`)).status).toBe(200);
      // Quit again, and this time leave: the window closes, then the server, then the process.
      send('tray-click quit');
      const asked = (message: string) => fakes(app.lines).filter((f) => f.type === 'dialog' && f.message === message).length;
      await app.waitFor(() => asked('Close the window without saving?') === 2);
      send('answer 0');
      await app.waitFor(isFake('exit'));
      expect(await app.exited).toBe(0);
      const order = fakes(app.lines).map((f) => f.type).filter((t) => ['closed', 'quit', 'exit'].includes(t));
      expect(order.slice(-3)).toEqual(['closed', 'quit', 'exit']);
    } finally {
      app.child.kill('SIGKILL');
    }

    const log = readFileSync(logFile, 'utf8');
    // The server's lines, the main process's errors, each stamped.
    expect(log).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z info {2}Setup token: \S{43}$/m);
    expect(log).toMatch(/info {2}Deskbase is running at http:\/\/127\.0\.0\.1:\d+\/_\//);
    expect(log).toContain("error The window's renderer is gone (crashed, exit code 11).");
    expect(log).toContain('error The window could not load');
    expect(log).toContain('error Uncaught exception (uncaughtException): Error: a bug in the main process');
    expect(log).toMatch(/error\s+at .*fake-electron\.cjs/);

    // The next start puts the window where it was left.
    expect(JSON.parse(readFileSync(join(appData, 'Deskbase', 'settings.json'), 'utf8')).window).toEqual({ x: 40, y: 30, width: 1000, height: 700, maximized: false });
    const again = launch(appData);
    try {
      const window = JSON.parse((await again.waitFor(isFake('window'))).slice(5)) as { bounds: object };
      expect(window.bounds).toEqual({ x: 40, y: 30, width: 1000, height: 700 });
      again.child.stdin.write('quit\n');
      await again.waitFor(isFake('exit'));
    } finally {
      again.child.kill('SIGKILL');
    }
  });

  it('with HTTPS in the settings, serves https with its own certificate; Restart relaunches after the checkpoint', async () => {
    const appData = join(out, 'appdata-https');
    await mkdir(join(appData, 'Deskbase'), { recursive: true });
    await writeFile(join(appData, 'Deskbase', 'settings.json'), JSON.stringify({ https: true }));
    const app = launch(appData);
    try {
      const load = JSON.parse((await app.waitFor(isFake('load'))).slice(5)) as { url: string };
      expect(load.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/_\/#\/setup\?token=/);
      expect(existsSync(join(appData, 'Deskbase', 'data', 'tls', 'ca.pem'))).toBe(true);
      const origin = new URL(load.url).origin;
      app.child.stdin.write(`invoke deskbase:preferences-get ${origin}/_/ []\n`);
      const prefs = JSON.parse((await app.waitFor(isFake('result'))).slice(5)) as { result: { https: boolean; httpsInUse: boolean } };
      expect(prefs.result).toMatchObject({ https: true, httpsInUse: true });
      app.child.stdin.write(`invoke deskbase:restart ${origin}/_/ []\n`);
      await app.waitFor(isFake('exit'));
      const order = fakes(app.lines).map((f) => f.type).filter((t) => ['relaunch', 'quit', 'exit'].includes(t));
      expect(order).toEqual(['relaunch', 'quit', 'exit']);
      expect(await app.exited).toBe(0);
    } finally {
      app.child.kill('SIGKILL');
    }
  });

  it('says so when another program holds the port it asks for, and takes the next one', async () => {
    const appData = join(out, 'appdata-port');
    await mkdir(join(appData, 'Deskbase'), { recursive: true });
    const port = await osFreePort();
    const squatter = await occupy(port);
    await writeFile(join(appData, 'Deskbase', 'settings.json'), JSON.stringify({ port }));
    const app = launch(appData);
    try {
      const load = JSON.parse((await app.waitFor(isFake('load'))).slice(5)) as { url: string };
      const used = Number(new URL(load.url).port);
      expect(used).not.toBe(port);
      const dialog = JSON.parse((await app.waitFor(isFake('dialog'))).slice(5)) as { message: string; detail: string };
      expect(dialog.message).toBe(`Deskbase is on port ${used} this time.`);
      expect(dialog.detail).toContain(`Port ${port} is used by another program, so Deskbase is on port ${used} this time.`);
      expect(dialog.detail).toMatch(/sign in again/);
      app.child.stdin.write(`invoke deskbase:preferences-get ${new URL(load.url).origin}/_/ []\n`);
      const prefs = JSON.parse((await app.waitFor(isFake('result'))).slice(5)) as { result: { port: number; portInUse: number } };
      expect(prefs.result).toMatchObject({ port, portInUse: used });
      app.child.stdin.write('quit\n');
      await app.waitFor(isFake('exit'));
    } finally {
      app.child.kill('SIGKILL');
      await closeListener(squatter);
    }
    expect(readFileSync(join(appData, 'Deskbase', 'logs', 'main.log'), 'utf8')).toContain(`warn  Port ${port} is used by another program`);
  });

  it('opens at login (an XDG autostart entry on Linux) and, started so, keeps its window closed', async () => {
    const appData = join(out, 'appdata-login');
    const xdg = join(out, 'xdg-config');
    await mkdir(appData, { recursive: true });
    const app = launch(appData, { XDG_CONFIG_HOME: xdg });
    try {
      const load = JSON.parse((await app.waitFor(isFake('load'))).slice(5)) as { url: string };
      app.child.stdin.write(`invoke deskbase:preferences-set ${new URL(load.url).origin}/_/ [{"openAtLogin":true}]\n`);
      await app.waitFor(isFake('result', (f) => f.channel === 'deskbase:preferences-set'));
      await app.waitFor(isFake('tray-menu', (f) => (f.ids as string[]).includes('open-at-login')));
      const entry = readFileSync(join(xdg, 'autostart', 'deskbase.desktop'), 'utf8');
      expect(entry).toContain(`Exec=${process.execPath} ${out} --hidden`);
      app.child.stdin.write('quit\n');
      await app.waitFor(isFake('exit'));
    } finally {
      app.child.kill('SIGKILL');
    }
    // what the entry starts: the server runs, no window until the tray asks for one
    const hidden = run(['--require', join(ROOT, 'test/main/fake-electron.cjs'), join(out, 'dist/main/index.cjs'), '--hidden'], { ...process.env, FAKE_APPDATA: appData, XDG_CONFIG_HOME: xdg });
    try {
      await hidden.waitFor((l) => l.includes('Deskbase started in the background'));
      expect(fakes(hidden.lines).some((f) => f.type === 'window')).toBe(false);
      hidden.child.stdin.write('tray-click open-ui\n');
      await hidden.waitFor(isFake('window'));
      hidden.child.stdin.write('quit\n');
      await hidden.waitFor(isFake('exit'));
    } finally {
      hidden.child.kill('SIGKILL');
    }
  });

  describe('updates, with the real electron-updater bundled, from a feed on this machine', () => {
    // A packaged AppImage as electron-updater sees it: APPIMAGE names the running file, app-update.yml in
    // the resources folder names the feed. The "new version" is a script that records, when the updater
    // runs it, whether the data folder's lock is still held: an install must come after Deskbase's shutdown.
    async function packagedApp(name: string) {
      const root = join(out, name);
      const marker = join(root, 'installed.txt');
      const appData = join(root, 'appdata');
      const lock = join(appData, 'Deskbase', 'data', 'deskbase.lock');
      await mkdir(join(root, 'resources'), { recursive: true });
      await mkdir(join(root, 'apps'), { recursive: true });
      await mkdir(appData, { recursive: true });
      const newVersion = `#!/bin/sh\nif [ -e "${lock}" ]; then echo lock-held; else echo lock-free; fi >> "${marker}"\n`;
      const sha512 = createHash('sha512').update(newVersion).digest('base64');
      const feedYml = [
        'version: 0.2.0', 'files:', '  - url: Deskbase-0.2.0.AppImage', `    sha512: ${sha512}`, `    size: ${Buffer.byteLength(newVersion)}`,
        'path: Deskbase-0.2.0.AppImage', `sha512: ${sha512}`, "releaseDate: '2026-11-26T00:00:00.000Z'", '',
      ].join('\n');
      const served: string[] = [];
      const feed = createHttpServer((req, res) => {
        served.push(req.url!.replace(/\?.*$/, ''));
        if (req.url!.startsWith('/latest-linux.yml')) res.end(feedYml);
        else if (req.url!.startsWith('/Deskbase-0.2.0.AppImage')) res.end(newVersion);
        else res.writeHead(404).end();
      });
      await new Promise<void>((r) => feed.listen(0, '127.0.0.1', r));
      const feedPort = (feed.address() as { port: number }).port;
      await writeFile(join(root, 'resources', 'app-update.yml'), `provider: generic\nurl: http://127.0.0.1:${feedPort}/\nupdaterCacheDirName: deskbase-updater\n`);
      const appImage = join(root, 'apps', 'Deskbase.AppImage');
      await writeFile(appImage, '#!/bin/sh\necho old\n', { mode: 0o755 });
      const port = await osFreePort();
      await mkdir(join(appData, 'Deskbase'), { recursive: true });
      await writeFile(join(appData, 'Deskbase', 'settings.json'), JSON.stringify({ port }));
      const app = launch(appData, { FAKE_PACKAGED: '1', FAKE_RESOURCES: join(root, 'resources'), APPIMAGE: appImage, XDG_CACHE_HOME: join(root, 'cache') });
      return { app, marker, lock, appImage, newVersion, served, close: () => new Promise<void>((r) => feed.close(() => r())) };
    }

    it('downloads in the background and installs on quit, after the server closed and released the data folder', async () => {
      const p = await packagedApp('update-on-quit');
      try {
        await p.app.waitFor((l) => l.includes('Deskbase 0.2.0 is downloaded'), 20_000);
        expect(p.served).toEqual(expect.arrayContaining(['/latest-linux.yml', '/Deskbase-0.2.0.AppImage']));
        expect(existsSync(p.lock)).toBe(true); // held while the server runs
        await p.app.waitFor(isFake('tray-menu', (f) => (f.ids as string[]).includes('install-update')));
        p.app.child.stdin.write('quit\n');
        await p.app.waitFor(isFake('exit'));
        expect(await p.app.exited).toBe(0);
        expect(p.app.lines.some((l) => l.includes('Auto install update on quit'))).toBe(true);
        expect(readFileSync(p.marker, 'utf8')).toBe('lock-free\n');
        expect(readFileSync(p.appImage, 'utf8')).toBe(p.newVersion);
      } finally {
        p.app.child.kill('SIGKILL');
        await p.close();
      }
    }, 40_000);

    it('"Restart to Update" installs and starts the new version, also after the shutdown', async () => {
      const p = await packagedApp('update-restart');
      try {
        await p.app.waitFor(isFake('tray-menu', (f) => (f.ids as string[]).includes('install-update')), 20_000);
        p.app.child.stdin.write('tray-click install-update\n');
        await p.app.waitFor(isFake('exit'));
        expect(p.app.lines.some((l) => l.includes('Installing Deskbase 0.2.0 and restarting.'))).toBe(true);
        expect(p.app.lines.some((l) => l.includes('Install: isSilent: true, isForceRunAfter: true'))).toBe(true);
        // the new version is started detached: wait for it to have run
        const deadline = Date.now() + 15_000;
        // (the script creates the file before it writes its line: wait for the line, not the file)
        const written = () => existsSync(p.marker) && readFileSync(p.marker, 'utf8').endsWith('\n');
        while (!written() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        expect(readFileSync(p.marker, 'utf8')).toBe('lock-free\n');
      } finally {
        p.app.child.kill('SIGKILL');
        await p.close();
      }
    }, 40_000);
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
    // Electron's fuse wire as the real binary carries it (Electron 45's defaults), so the fuses are really flipped.
    const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
    await writeFile(join(stub, 'electron'), `#!/bin/sh\n# ${SENTINEL}\x01\x0810110001\n`, { mode: 0o755 });
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
    const binary = readFileSync(join(out, 'release/linux-unpacked/deskbase'), 'latin1');
    const at = binary.indexOf(SENTINEL) + SENTINEL.length;
    // run-as-node off, cookie encryption on, NODE_OPTIONS off, --inspect off, asar integrity on, only the
    // asar, no browser-specific snapshot, no extra file: privileges
    expect(binary.slice(at, at + 10)).toBe('\x01\x0801001100');
    // the updater's configuration, from `publish`
    expect(readFileSync(join(out, 'release/linux-unpacked/resources/app-update.yml'), 'utf8')).toMatch(/provider: github/);
  }, 150_000);
});
