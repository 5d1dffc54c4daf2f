// The desktop app's data folder choice and its settings file (main/paths.ts, main/settings.ts).
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { desktopPaths, userDataDir } from '../../main/paths.js';
import { createSettingsStore, DEFAULT_SETTINGS, loadSettings, parseSettings, saveSettings } from '../../main/settings.js';

describe('data folder', () => {
  it('puts userData under the product name, whatever package.json calls the app', () => {
    expect(userDataDir(join('/home/ada', '.config'))).toBe(join('/home/ada', '.config', 'Deskbase'));
  });

  it.each([
    { override: undefined, dataDir: join('/u', 'data') },
    { override: null, dataDir: join('/u', 'data') },
    { override: '', dataDir: join('/u', 'data') },
    { override: '   ', dataDir: join('/u', 'data') },
    { override: '/srv/deskbase', dataDir: '/srv/deskbase' },
    { override: 'relative/db', dataDir: resolve('relative/db') },
  ])('override $override → $dataDir', ({ override, dataDir }) => {
    const paths = desktopPaths('/u', override);
    expect(paths).toEqual({ userData: '/u', dataDir, settingsFile: join('/u', 'settings.json') });
  });

  it('keeps the database apart from the settings and from Chromium files in userData', () => {
    const paths = desktopPaths('/u');
    expect(paths.dataDir).not.toBe(paths.userData);
    expect(paths.settingsFile.startsWith(paths.dataDir)).toBe(false);
  });
});

describe('settings file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'deskbase-settings-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    { text: '{"lan":true}', lan: true },
    { text: '{"lan":false}', lan: false },
    { text: '{"lan":"yes"}', lan: false },
    { text: '{"lan":1}', lan: false },
    { text: '{}', lan: false },
    { text: 'null', lan: false },
    { text: '[true]', lan: false },
    { text: '{"lan":true', lan: false },
    { text: '', lan: false },
  ])('parses $text as lan=$lan', ({ text, lan }) => {
    expect(parseSettings(text)).toEqual({ ...DEFAULT_SETTINGS, lan });
  });

  it('starts from the defaults when there is no file yet (LAN sharing off, port 8090, the tray by platform)', async () => {
    expect(await loadSettings(join(dir, 'settings.json'))).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS).toMatchObject({ lan: false, port: 8090, keepRunning: null, openAtLogin: false, theme: 'system', updateChannel: 'stable', window: null });
  });

  it.each([
    { patch: { port: 9000 }, expected: { port: 9000 } },
    { patch: { port: 80 }, expected: { port: 8090 } },
    { patch: { port: 0 }, expected: { port: 8090 } },
    { patch: { port: 70000 }, expected: { port: 8090 } },
    { patch: { port: '9000' }, expected: { port: 8090 } },
    { patch: { keepRunning: false, openAtLogin: true }, expected: { keepRunning: false, openAtLogin: true } },
    { patch: { keepRunning: 'no' }, expected: { keepRunning: null } },
    { patch: { theme: 'dark', updateChannel: 'beta' }, expected: { theme: 'dark', updateChannel: 'beta' } },
    { patch: { theme: 'blue', updateChannel: 'nightly' }, expected: { theme: 'system', updateChannel: 'stable' } },
    { patch: { window: { x: 10, y: -20, width: 900, height: 600, maximized: true } }, expected: { window: { x: 10, y: -20, width: 900, height: 600, maximized: true } } },
    { patch: { window: { x: 10, y: 20, width: 0, height: 600 } }, expected: { window: null } },
    { patch: { window: { x: 1.5, y: 20, width: 900, height: 600 } }, expected: { window: null } },
    { patch: { window: 'big' }, expected: { window: null } },
  ])('reads $patch as $expected, anything else falls back to the default', ({ patch, expected }) => {
    expect(parseSettings(JSON.stringify(patch))).toEqual({ ...DEFAULT_SETTINGS, ...expected });
  });

  it('saves and loads back, creating the folder, leaving no temporary file', async () => {
    const file = join(dir, 'nested', 'settings.json');
    await saveSettings(file, { ...DEFAULT_SETTINGS, lan: true });
    expect(await loadSettings(file)).toEqual({ ...DEFAULT_SETTINGS, lan: true });
    await saveSettings(file, { ...DEFAULT_SETTINGS, lan: false });
    expect(await loadSettings(file)).toEqual({ ...DEFAULT_SETTINGS, lan: false });
    expect(await readdir(join(dir, 'nested'))).toEqual(['settings.json']);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ ...DEFAULT_SETTINGS, lan: false });
  });

  it('replaces a damaged file with a whole new one', async () => {
    const file = join(dir, 'settings.json');
    await writeFile(file, '{"lan": tr');
    expect(await loadSettings(file)).toEqual(DEFAULT_SETTINGS);
    await saveSettings(file, { ...DEFAULT_SETTINGS, lan: true });
    expect(await loadSettings(file)).toEqual({ ...DEFAULT_SETTINGS, lan: true });
  });

  it('the store writes patches one after another, each file whole, the last one winning', async () => {
    const file = join(dir, 'settings.json');
    const store = createSettingsStore(file, DEFAULT_SETTINGS);
    const writes = [store.update({ lan: true }), store.update({ theme: 'dark' }), store.update({ port: 9100 })];
    expect(store.get()).toEqual({ ...DEFAULT_SETTINGS, lan: true, theme: 'dark', port: 9100 });
    await Promise.all(writes);
    expect(await loadSettings(file)).toEqual({ ...DEFAULT_SETTINGS, lan: true, theme: 'dark', port: 9100 });
    expect(await readdir(dir)).toEqual(['settings.json']);
  });
});
