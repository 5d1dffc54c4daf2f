// The desktop app's data folder choice and its settings file (main/paths.ts, main/settings.ts).
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { desktopPaths, userDataDir } from '../../main/paths.js';
import { DEFAULT_SETTINGS, loadSettings, parseSettings, saveSettings } from '../../main/settings.js';

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
    expect(parseSettings(text)).toEqual({ lan });
  });

  it('starts from the defaults when there is no file yet (LAN sharing off)', async () => {
    expect(await loadSettings(join(dir, 'settings.json'))).toEqual({ lan: false });
    expect(DEFAULT_SETTINGS.lan).toBe(false);
  });

  it('saves and loads back, creating the folder, leaving no temporary file', async () => {
    const file = join(dir, 'nested', 'settings.json');
    await saveSettings(file, { lan: true });
    expect(await loadSettings(file)).toEqual({ lan: true });
    await saveSettings(file, { lan: false });
    expect(await loadSettings(file)).toEqual({ lan: false });
    expect(await readdir(join(dir, 'nested'))).toEqual(['settings.json']);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ lan: false });
  });

  it('replaces a damaged file with a whole new one', async () => {
    const file = join(dir, 'settings.json');
    await writeFile(file, '{"lan": tr');
    expect(await loadSettings(file)).toEqual({ lan: false });
    await saveSettings(file, { lan: true });
    expect(await loadSettings(file)).toEqual({ lan: true });
  });
});
