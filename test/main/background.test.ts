// A desktop app that keeps running: background mode (main/background.ts), open at login
// (main/login-item.ts, a real autostart file on Linux), the window's place (main/window-state.ts), the
// port notice (main/desktop-server.ts) and the preferences the admin UI changes (main/preferences.ts).
import { EventEmitter } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultKeepRunning, HIDDEN_FLAG, keepsRunning, startsHidden } from '../../main/background.js';
import { portNotice } from '../../main/desktop-server.js';
import { applyOpenAtLogin, AUTOSTART_FILE, autostartDir, autostartEntry, execArgument, type LoginItemSettings } from '../../main/login-item.js';
import { createPreferences, parsePreferencesPatch } from '../../main/preferences.js';
import type { DesktopPreferences } from '../../main/preload-api.js';
import { createSettingsStore, DEFAULT_SETTINGS, loadSettings } from '../../main/settings.js';
import { DEFAULT_SIZE, initialBounds, MIN_SIZE, trackWindowState, type Rect } from '../../main/window-state.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deskbase-bg-'));
});
afterEach(async () => {
  vi.useRealTimers();
  await rm(dir, { recursive: true, force: true });
});

describe('background mode', () => {
  it.each([
    { platform: 'win32', tray: true, keep: true },
    { platform: 'darwin', tray: true, keep: true },
    { platform: 'linux', tray: true, keep: true },
    { platform: 'linux', tray: false, keep: false },
  ] as const)('on $platform (tray=$tray) the default keeps running=$keep', ({ platform, tray, keep }) => {
    expect(defaultKeepRunning(platform, tray)).toBe(keep);
    expect(keepsRunning(null, platform, tray)).toBe(keep);
  });

  it.each([
    { setting: false, platform: 'win32', tray: true, keep: false },
    { setting: true, platform: 'linux', tray: true, keep: true },
    // no tray to come back from: quits whatever the setting says
    { setting: true, platform: 'linux', tray: false, keep: false },
    { setting: true, platform: 'win32', tray: false, keep: false },
    // macOS keeps its dock icon
    { setting: true, platform: 'darwin', tray: false, keep: true },
  ] as const)('the setting $setting on $platform (tray=$tray) → $keep', ({ setting, platform, tray, keep }) => {
    expect(keepsRunning(setting, platform, tray)).toBe(keep);
  });

  it.each([
    { argv: ['deskbase', HIDDEN_FLAG], atLogin: false, keep: true, hidden: true },
    { argv: ['deskbase'], atLogin: true, keep: true, hidden: true },
    { argv: ['deskbase'], atLogin: false, keep: true, hidden: false },
    // started at login without background mode: the window is the only way to the app
    { argv: ['deskbase', HIDDEN_FLAG], atLogin: true, keep: false, hidden: false },
  ])('starts hidden: argv=$argv atLogin=$atLogin keepRunning=$keep → $hidden', ({ argv, atLogin, keep, hidden }) => {
    expect(startsHidden(argv, atLogin, keep)).toBe(hidden);
  });
});

describe('open at login', () => {
  it('Linux: writes and removes an XDG autostart entry that starts Deskbase hidden', async () => {
    const autostart = join(dir, 'config', 'autostart');
    const deps = { platform: 'linux' as const, setLoginItemSettings: () => expect.unreachable(), autostartDir: autostart, command: ['/opt/Deskbase/deskbase'] };
    await applyOpenAtLogin(true, deps);
    const entry = await readFile(join(autostart, AUTOSTART_FILE), 'utf8');
    expect(entry).toContain('[Desktop Entry]\nType=Application\nName=Deskbase\n');
    expect(entry).toContain(`\nExec=/opt/Deskbase/deskbase ${HIDDEN_FLAG}\n`);
    await applyOpenAtLogin(false, deps);
    expect(await readdir(autostart)).toEqual([]);
    await applyOpenAtLogin(false, deps); // already off: nothing to remove, no error
  });

  it('quotes paths with spaces and special characters as the Desktop Entry spec asks', () => {
    expect(execArgument('/home/ada/Apps/Deskbase.AppImage')).toBe('/home/ada/Apps/Deskbase.AppImage');
    expect(execArgument('/home/ada/My Apps/Deskbase.AppImage')).toBe('"/home/ada/My Apps/Deskbase.AppImage"');
    expect(execArgument('/tmp/a"b$c`d\\e')).toBe('"/tmp/a\\"b\\$c\\`d\\\\e"');
    expect(execArgument('/tmp/100%')).toBe('"/tmp/100%%"');
    expect(autostartEntry(['/usr/bin/electron', '/src/desk base'])).toContain(`Exec=/usr/bin/electron "/src/desk base" ${HIDDEN_FLAG}`);
  });

  it.each([
    { env: {}, expected: join('/home/ada', '.config', 'autostart') },
    { env: { XDG_CONFIG_HOME: '/xdg' }, expected: join('/xdg', 'autostart') },
    { env: { XDG_CONFIG_HOME: 'relative' }, expected: join('/home/ada', '.config', 'autostart') },
  ])('the autostart folder with $env', ({ env, expected }) => {
    expect(autostartDir(env, '/home/ada')).toBe(expected);
  });

  it.each([
    { platform: 'win32' as const, command: ['C:\\Deskbase\\Deskbase.exe'], expected: { openAtLogin: true, args: [HIDDEN_FLAG] } },
    { platform: 'win32' as const, command: ['electron.exe', 'C:\\src\\deskbase'], expected: { openAtLogin: true, args: ['C:\\src\\deskbase', HIDDEN_FLAG] } },
    { platform: 'darwin' as const, command: ['/Applications/Deskbase.app/Contents/MacOS/Deskbase'], expected: { openAtLogin: true } },
  ])('$platform: the OS login item', async ({ platform, command, expected }) => {
    const set: LoginItemSettings[] = [];
    await applyOpenAtLogin(true, { platform, setLoginItemSettings: (s) => set.push(s), autostartDir: join(dir, 'never'), command });
    expect(set).toEqual([expected]);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('the window state', () => {
  const screen: Rect[] = [{ x: 0, y: 0, width: 1920, height: 1050 }];
  const twoScreens: Rect[] = [...screen, { x: 1920, y: 0, width: 2560, height: 1410 }];

  it.each([
    { name: 'nothing saved: the default size, centred', saved: null, areas: screen, expected: { ...DEFAULT_SIZE, maximized: false } },
    { name: 'on screen: kept', saved: { x: 50, y: 60, width: 1000, height: 700, maximized: false }, areas: screen, expected: { x: 50, y: 60, width: 1000, height: 700, maximized: false } },
    { name: 'maximized: kept maximized', saved: { x: 50, y: 60, width: 1000, height: 700, maximized: true }, areas: screen, expected: { x: 50, y: 60, width: 1000, height: 700, maximized: true } },
    { name: 'on the second monitor, still plugged', saved: { x: 2000, y: 100, width: 1600, height: 900, maximized: false }, areas: twoScreens, expected: { x: 2000, y: 100, width: 1600, height: 900, maximized: false } },
    { name: 'on a monitor unplugged since: centred, size kept', saved: { x: 2000, y: 100, width: 1600, height: 900, maximized: false }, areas: screen, expected: { width: 1600, height: 900, maximized: false } },
    { name: 'barely on screen (a sliver): centred', saved: { x: 1900, y: 100, width: 800, height: 600, maximized: false }, areas: screen, expected: { width: 800, height: 600, maximized: false } },
    { name: 'larger than any display: shrunk to fit', saved: { x: 0, y: 0, width: 5000, height: 3000, maximized: false }, areas: screen, expected: { x: 0, y: 0, width: 1920, height: 1050, maximized: false } },
    { name: 'below the minimum: grown to it', saved: { x: 10, y: 10, width: 200, height: 100, maximized: false }, areas: screen, expected: { x: 10, y: 10, ...MIN_SIZE, maximized: false } },
  ])('$name', ({ saved, areas, expected }) => {
    expect(initialBounds(saved, areas)).toEqual(expected);
  });

  function fakeWindow() {
    const win = Object.assign(new EventEmitter(), {
      bounds: { x: 10, y: 20, width: 900, height: 600 },
      maximized: false,
      destroyed: false,
      getNormalBounds: () => win.bounds,
      isMaximized: () => win.maximized,
      isMinimized: () => false,
      isDestroyed: () => win.destroyed,
    });
    return win;
  }

  it('saves once the window stops moving, and at once when it closes', () => {
    vi.useFakeTimers();
    const win = fakeWindow();
    const saved: unknown[] = [];
    trackWindowState(win, (b) => saved.push(b), 500);
    win.bounds = { x: 11, y: 20, width: 900, height: 600 };
    win.emit('move');
    win.bounds = { x: 12.4, y: 20, width: 900, height: 600 };
    win.emit('move');
    expect(saved).toEqual([]);
    vi.advanceTimersByTime(500);
    expect(saved).toEqual([{ x: 12, y: 20, width: 900, height: 600, maximized: false }]);
    win.maximized = true;
    win.emit('maximize');
    win.emit('close');
    expect(saved.at(-1)).toEqual({ x: 12, y: 20, width: 900, height: 600, maximized: true });
    expect(saved).toHaveLength(2);
    // nothing changed: nothing written
    win.emit('resize');
    vi.advanceTimersByTime(500);
    expect(saved).toHaveLength(2);
  });

  it('a destroyed window saves nothing', () => {
    const win = fakeWindow();
    const saved: unknown[] = [];
    trackWindowState(win, (b) => saved.push(b));
    win.destroyed = true;
    win.emit('close');
    expect(saved).toEqual([]);
  });
});

describe('the port notice', () => {
  it('says nothing when the preferred port was free', () => {
    expect(portNotice(8090, 8090)).toBeNull();
  });

  it('names both ports and why it matters: the sign-in is per address', () => {
    const text = portNotice(8090, 8091)!;
    expect(text).toMatch(/Port 8090 is used by another program, so Deskbase is on port 8091/);
    expect(text).toMatch(/sign in again/);
  });
});

describe('preferences', () => {
  function setup(overrides: { platform?: NodeJS.Platform; hasTray?: boolean; failLogin?: string } = {}) {
    const file = join(dir, 'settings.json');
    const store = createSettingsStore(file, DEFAULT_SETTINGS);
    const calls: string[] = [];
    const changes: DesktopPreferences[] = [];
    const prefs = createPreferences({
      store,
      platform: overrides.platform ?? 'linux',
      hasTray: () => overrides.hasTray ?? true,
      portInUse: () => 8091,
      httpsInUse: () => false,
      setTheme: (t) => calls.push(`theme:${t}`),
      setOpenAtLogin: async (on) => {
        if (overrides.failLogin) throw new Error(overrides.failLogin);
        calls.push(`login:${on}`);
      },
      setUpdateChannel: (c) => calls.push(`channel:${c}`),
      onChange: (p) => changes.push(p),
    });
    return { file, prefs, calls, changes };
  }

  it('shows the preferences with the port in use beside the one asked for', () => {
    expect(setup().prefs.get()).toEqual({
      port: 8090, portInUse: 8091, keepRunning: true, keepRunningAvailable: true, openAtLogin: false, theme: 'system', updateChannel: 'stable',
      https: false, httpsInUse: false,
    });
  });

  it('applies each change to the OS, saves it and tells the menus and the window', async () => {
    const { file, prefs, calls, changes } = setup();
    const after = await prefs.set({ theme: 'dark', openAtLogin: true, updateChannel: 'beta', keepRunning: false, port: 9000, https: true });
    expect(calls).toEqual(['login:true', 'theme:dark', 'channel:beta']);
    expect(after).toMatchObject({ theme: 'dark', openAtLogin: true, updateChannel: 'beta', keepRunning: false, port: 9000, portInUse: 8091, https: true, httpsInUse: false });
    expect(changes).toEqual([after]);
    expect(await loadSettings(file)).toMatchObject({ theme: 'dark', openAtLogin: true, updateChannel: 'beta', keepRunning: false, port: 9000 });
    expect(prefs.keepRunning()).toBe(false);
  });

  it('a login item the OS refuses is neither saved nor reported as done', async () => {
    const { file, prefs, changes } = setup({ failLogin: 'permission denied' });
    await expect(prefs.set({ openAtLogin: true })).rejects.toThrow('permission denied');
    expect(prefs.get().openAtLogin).toBe(false);
    expect(changes).toEqual([]);
    await expect(readFile(file)).rejects.toThrow(); // nothing written
  });

  it('background mode cannot be turned on without a tray', async () => {
    const { prefs } = setup({ hasTray: false });
    expect(prefs.get()).toMatchObject({ keepRunning: false, keepRunningAvailable: false });
    await expect(prefs.set({ keepRunning: true })).rejects.toThrow(/no tray/);
  });

  it.each([
    { patch: { port: 80 }, message: /port must be a whole number from 1024 to 65535/ },
    { patch: { port: '9000' }, message: /port must be/ },
    { patch: { port: 9000.5 }, message: /port must be/ },
    { patch: { keepRunning: 'yes' }, message: /keepRunning must be true or false/ },
    { patch: { https: 1 }, message: /https must be true or false/ },
    { patch: { theme: 'blue' }, message: /theme must be "system", "light" or "dark"/ },
    { patch: { updateChannel: 'nightly' }, message: /updateChannel must be "stable" or "beta"/ },
    { patch: { lan: true }, message: /Unknown preference "lan"/ },
    { patch: { window: {} }, message: /Unknown preference "window"/ },
    { patch: null, message: /must be an object/ },
    { patch: [1], message: /must be an object/ },
  ])('refuses $patch, naming it, and changes nothing', async ({ patch, message }) => {
    expect(() => parsePreferencesPatch(patch)).toThrow(message);
    const { prefs, calls, changes } = setup();
    await expect(prefs.set(patch)).rejects.toThrow(message);
    expect(calls).toEqual([]);
    expect(changes).toEqual([]);
  });

  it('a refused key next to good ones refuses the whole patch', async () => {
    const { prefs, calls } = setup();
    await expect(prefs.set({ theme: 'dark', colour: 'red' })).rejects.toThrow(/Unknown preference "colour"/);
    expect(calls).toEqual([]);
    expect(prefs.get().theme).toBe('system');
  });
});
