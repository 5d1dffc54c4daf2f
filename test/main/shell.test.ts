// The desktop shell's plain logic: menus and their actions (main/menu.ts, main/actions.ts), the shutdown
// sequence (main/shutdown.ts) and focusing the first window on a second launch (main/single-instance.ts).
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { createHandlers, createMenuActions, type ActionDeps } from '../../main/actions.js';
import type { LanSwitch } from '../../main/lan.js';
import { appMenuTemplate, commandItems, trayTemplate, type DesktopActions } from '../../main/menu.js';
import { createShutdown } from '../../main/shutdown.js';
import { focusWindow, type FocusableWindow } from '../../main/single-instance.js';

function recordingActions() {
  const calls: string[] = [];
  const actions: DesktopActions = {
    openUi: () => calls.push('openUi'),
    copyApiUrl: () => calls.push('copyApiUrl'),
    openDataFolder: () => calls.push('openDataFolder'),
    openLogsFolder: () => calls.push('openLogsFolder'),
    openHooksFolder: () => calls.push('openHooksFolder'),
    openMigrationsFolder: () => calls.push('openMigrationsFolder'),
    setLan: (enabled) => calls.push(`setLan:${enabled}`),
    setKeepRunning: (enabled) => calls.push(`setKeepRunning:${enabled}`),
    setOpenAtLogin: (enabled) => calls.push(`setOpenAtLogin:${enabled}`),
    checkForUpdates: () => calls.push('checkForUpdates'),
    installUpdate: () => calls.push('installUpdate'),
    quit: () => calls.push('quit'),
  };
  return { calls, actions };
}

const click = (item: MenuItemConstructorOptions) => (item.click as () => void)();
const byId = (items: MenuItemConstructorOptions[], id: string) => items.find((i) => i.id === id)!;

describe('menus', () => {
  it('offers the commands in order', () => {
    const items = commandItems({ lan: false }, recordingActions().actions);
    expect(items.filter((i) => i.id).map((i) => i.id)).toEqual(['open-ui', 'copy-api-url', 'open-data-folder', 'open-logs-folder', 'open-hooks-folder', 'open-migrations-folder', 'lan', 'quit']);
  });

  it.each([
    { id: 'open-ui', lan: false, call: 'openUi' },
    { id: 'copy-api-url', lan: false, call: 'copyApiUrl' },
    { id: 'open-data-folder', lan: false, call: 'openDataFolder' },
    { id: 'open-logs-folder', lan: false, call: 'openLogsFolder' },
    { id: 'open-hooks-folder', lan: false, call: 'openHooksFolder' },
    { id: 'open-migrations-folder', lan: false, call: 'openMigrationsFolder' },
    { id: 'lan', lan: false, call: 'setLan:true' },
    { id: 'lan', lan: true, call: 'setLan:false' },
    { id: 'quit', lan: false, call: 'quit' },
  ])('$id (lan=$lan) runs $call', ({ id, lan, call }) => {
    const { calls, actions } = recordingActions();
    click(byId(trayTemplate({ lan }, actions), id));
    expect(calls).toEqual([call]);
  });

  it('adds background mode, open at login and updates when the app has them', () => {
    const full = { lan: false, keepRunning: true, openAtLogin: false, update: { ready: null } };
    const ids = (state: Parameters<typeof commandItems>[0]) => commandItems(state, recordingActions().actions).filter((i) => i.id).map((i) => i.id);
    expect(ids(full)).toEqual(['open-ui', 'copy-api-url', 'open-data-folder', 'open-logs-folder', 'open-hooks-folder', 'open-migrations-folder', 'lan', 'keep-running', 'open-at-login', 'check-updates', 'quit']);
    expect(ids({ ...full, update: { ready: '1.2.0' } })).toContain('install-update');
    expect(byId(commandItems({ ...full, update: { ready: '1.2.0' } }, recordingActions().actions), 'install-update').label).toBe('Restart to Update to 1.2.0');
  });

  it.each([
    { id: 'keep-running', state: { keepRunning: true }, call: 'setKeepRunning:false' },
    { id: 'keep-running', state: { keepRunning: false }, call: 'setKeepRunning:true' },
    { id: 'open-at-login', state: { openAtLogin: false }, call: 'setOpenAtLogin:true' },
    { id: 'check-updates', state: { update: { ready: null } }, call: 'checkForUpdates' },
    { id: 'install-update', state: { update: { ready: '2.0.0' } }, call: 'installUpdate' },
  ])('$id with $state runs $call', ({ id, state, call }) => {
    const { calls, actions } = recordingActions();
    const item = byId(trayTemplate({ lan: false, ...state }, actions), id);
    click(item);
    expect(calls).toEqual([call]);
    if (id === 'keep-running' || id === 'open-at-login') expect(item).toMatchObject({ type: 'checkbox', checked: Object.values(state)[0] });
  });

  it.each([true, false])('shows LAN sharing as a checkbox, checked=%s', (lan) => {
    const item = byId(trayTemplate({ lan }, recordingActions().actions), 'lan');
    expect(item).toMatchObject({ type: 'checkbox', checked: lan });
  });

  it.each([
    { platform: 'darwin' as const, first: 'appMenu', roles: ['appMenu', undefined, 'editMenu', 'viewMenu', 'windowMenu'] },
    { platform: 'linux' as const, first: 'Deskbase', roles: [undefined, 'editMenu', 'viewMenu', 'windowMenu'] },
    { platform: 'win32' as const, first: 'Deskbase', roles: [undefined, 'editMenu', 'viewMenu', 'windowMenu'] },
  ])('application menu on $platform', ({ platform, roles }) => {
    const template = appMenuTemplate({ lan: true }, recordingActions().actions, platform);
    expect(template.map((m) => m.role)).toEqual(roles);
    const commands = template.find((m) => m.label === 'Deskbase')!.submenu as MenuItemConstructorOptions[];
    expect(byId(commands, 'lan').checked).toBe(true);
  });
});

describe('menu actions', () => {
  function setup(overrides: Partial<ActionDeps> = {}) {
    const log: string[] = [];
    const lan: LanSwitch = {
      get: async () => ({ enabled: false, urls: [], qr: null }),
      set: async () => {
        throw new Error('Could not share on the LAN: port taken');
      },
    };
    const deps: ActionDeps = {
      server: { url: 'http://127.0.0.1:8090', lanUrls: async () => [] },
      lan,
      dataDir: '/data',
      logsDir: '/logs',
      hooksDir: '/pb_hooks',
      migrationsDir: '/pb_migrations',
      ensureFolder: async (path) => (log.push(`made:${path}`), path === '/pb_hooks'),
      reportInfo: (title) => void log.push(`info:${title}`),
      writeClipboard: (text) => log.push(`clipboard:${text}`),
      openPath: async () => 'No application knows how to open it',
      openUi: () => log.push('openUi'),
      quit: () => log.push('quit'),
      reportError: (title, err) => log.push(`error:${title}:${err instanceof Error ? err.message : String(err)}`),
      onLanUnchanged: () => log.push('lanUnchanged'),
      ...overrides,
    };
    const actions = createMenuActions(deps, createHandlers(deps));
    return { log, actions };
  }
  const settle = () => new Promise((r) => setTimeout(r, 0));

  it('a failed LAN change reports why and resets the checkbox', async () => {
    const { log, actions } = setup();
    actions.setLan(true);
    await settle();
    expect(log).toEqual(['lanUnchanged', 'error:LAN sharing:Could not share on the LAN: port taken']);
  });

  it.each([
    { outcome: { status: 'current' as const }, message: 'Deskbase is up to date.' },
    { outcome: { status: 'available' as const, version: '1.5.0' }, message: /Deskbase 1\.5\.0 is being downloaded/ },
    { outcome: { status: 'failed' as const, reason: 'offline' }, message: 'Could not check for updates: offline' },
    { outcome: { status: 'off' as const }, message: /Updates are off in this build/ },
  ])('Check for Updates says what it found: $outcome.status', async ({ outcome, message }) => {
    const infos: string[] = [];
    const { actions } = setup({ updates: { check: async () => outcome, requestInstall: () => false }, reportInfo: (_t, m) => infos.push(m) });
    actions.checkForUpdates();
    await settle();
    expect(infos).toHaveLength(1);
    expect(infos[0]).toMatch(message);
  });

  it('Restart to Update quits only when an update is ready', () => {
    let ready = false;
    const { log, actions } = setup({ updates: { check: async () => ({ status: 'current' }), requestInstall: () => ready } });
    actions.installUpdate();
    expect(log).toEqual([]);
    ready = true;
    actions.installUpdate();
    expect(log).toEqual(['quit']);
  });

  it('Open Logs Folder opens the logs folder; a failure is reported', async () => {
    const opened: string[] = [];
    const ok = setup({ openPath: async (p) => (opened.push(p), '') });
    ok.actions.openLogsFolder();
    await settle();
    expect(opened).toEqual(['/logs']);
    expect(ok.log).toEqual([]);
    const { log, actions } = setup();
    actions.openLogsFolder();
    await settle();
    expect(log).toEqual(['error:Could not open the logs folder:Could not open /logs: No application knows how to open it']);
  });

  it('Open Hooks Folder and Open Migrations Folder make the folder when missing, then open it; a failure is reported', async () => {
    const opened: string[] = [];
    const ok = setup({ openPath: async (p) => (opened.push(p), '') });
    ok.actions.openHooksFolder();
    ok.actions.openMigrationsFolder();
    await settle();
    await settle();
    expect(opened).toEqual(['/pb_hooks', '/pb_migrations']);
    // the hooks folder was made now (it says when its files take effect), the migrations folder was there
    expect(ok.log).toEqual(['made:/pb_hooks', 'made:/pb_migrations', 'info:Hooks folder created']);
    const { log, actions } = setup({ ensureFolder: async () => { throw new Error('EACCES: permission denied'); } });
    actions.openHooksFolder();
    await settle();
    expect(log).toEqual(['error:Could not open the hooks folder:EACCES: permission denied']);
  });

  it('a data folder the system cannot open is reported', async () => {
    const { log, actions } = setup();
    actions.openDataFolder();
    await settle();
    expect(log).toEqual(['error:Could not open the data folder:Could not open /data: No application knows how to open it']);
  });

  it('copies the local API URL while not sharing', async () => {
    const { log, actions } = setup();
    actions.copyApiUrl();
    await settle();
    expect(log).toEqual(['clipboard:http://127.0.0.1:8090/api/']);
  });
});

describe('shutdown', () => {
  function harness(close: () => Promise<void>, timeoutMs?: number) {
    const events: string[] = [];
    const shutdown = createShutdown({
      close: async () => {
        events.push('close:start');
        await close();
        events.push('close:done');
      },
      exit: (code) => events.push(`exit:${code}`),
      log: (line) => events.push(`log:${line}`),
      timeoutMs,
    });
    const quitEvent = () => {
      const e = { prevented: false, preventDefault: () => void (e.prevented = true) };
      return e;
    };
    return { events, shutdown, quitEvent };
  }

  it('holds the quit at will-quit (every window closed), closes the server once, then exits 0', async () => {
    let release = () => undefined as void;
    const { events, shutdown, quitEvent } = harness(() => new Promise<void>((r) => (release = r)));
    shutdown.onBeforeQuit(); // Electron now closes the windows; nothing is closed yet
    expect(events).toEqual([]);
    const first = quitEvent();
    shutdown.onWillQuit(first);
    const second = quitEvent();
    shutdown.onWillQuit(second);
    shutdown.onSystemShutdown(quitEvent());
    expect(first.prevented && second.prevented).toBe(true);
    expect(events).toEqual(['close:start']);
    release();
    await shutdown.stop();
    expect(events).toEqual(['close:start', 'close:done', 'exit:0']);
  });

  it.each([
    { name: 'keeps running in the tray when the window closes', asked: false, calledOff: false, keepRunning: true, quits: false },
    { name: 'quits when the window closes without the tray', asked: false, calledOff: false, keepRunning: false, quits: true },
    { name: 'a quit that waited for the window (its edit let go) goes on, tray or not', asked: true, calledOff: false, keepRunning: true, quits: true },
    { name: 'a quit called off by a kept edit does not come back with a later close', asked: true, calledOff: true, keepRunning: true, quits: false },
  ])('$name', ({ asked, calledOff, keepRunning, quits }) => {
    const { shutdown } = harness(async () => undefined);
    if (asked) shutdown.onBeforeQuit();
    if (calledOff) shutdown.onQuitCalledOff();
    expect(shutdown.shouldQuitWhenAllClosed(keepRunning)).toBe(quits);
  });

  it('runs beforeExit (where an update installs) after the server is closed, with the exit code, before exiting', async () => {
    const events: string[] = [];
    const shutdown = createShutdown({
      close: async () => void events.push('close'),
      beforeExit: (code) => events.push(`beforeExit:${code}`),
      exit: (code) => events.push(`exit:${code}`),
      log: (line) => events.push(`log:${line}`),
    });
    await shutdown.stop();
    expect(events).toEqual(['close', 'beforeExit:0', 'exit:0']);
  });

  it('exits even when beforeExit throws, saying why', async () => {
    const events: string[] = [];
    const shutdown = createShutdown({
      close: async () => undefined,
      beforeExit: () => {
        throw new Error('installer missing');
      },
      exit: (code) => events.push(`exit:${code}`),
      log: (line) => events.push(`log:${line}`),
    });
    await shutdown.stop();
    expect(events).toEqual(['log:Deskbase: error before exiting: installer missing', 'exit:0']);
  });

  it('asks the OS to wait on system shutdown', async () => {
    const { events, shutdown, quitEvent } = harness(async () => undefined);
    const e = quitEvent();
    shutdown.onSystemShutdown(e);
    await shutdown.stop();
    expect(e.prevented).toBe(true);
    expect(events).toEqual(['close:start', 'close:done', 'exit:0']);
  });

  it('exits 1 with the reason when closing fails', async () => {
    const { events, shutdown } = harness(async () => {
      throw new Error('disk full');
    });
    await shutdown.stop();
    expect(events).toEqual(['close:start', 'log:Deskbase: error while closing the server: disk full', 'exit:1']);
  });

  it('exits anyway when closing hangs', async () => {
    const { events, shutdown } = harness(() => new Promise<void>(() => undefined), 20);
    await shutdown.stop();
    expect(events[0]).toBe('close:start');
    expect(events.at(-1)).toBe('exit:1');
    expect(events.some((e) => e.includes('took too long'))).toBe(true);
  });
});

describe('second launch', () => {
  function fakeWindow(state: { destroyed?: boolean; minimized?: boolean }) {
    const calls: string[] = [];
    const win: FocusableWindow = {
      isDestroyed: () => state.destroyed === true,
      isMinimized: () => state.minimized === true,
      restore: () => calls.push('restore'),
      show: () => calls.push('show'),
      focus: () => calls.push('focus'),
    };
    return { win, calls };
  }

  it.each([
    { state: {}, focused: true, calls: ['show', 'focus'] },
    { state: { minimized: true }, focused: true, calls: ['restore', 'show', 'focus'] },
    { state: { destroyed: true }, focused: false, calls: [] },
  ])('window $state → focused=$focused', ({ state, focused, calls }) => {
    const w = fakeWindow(state);
    expect(focusWindow(w.win)).toBe(focused);
    expect(w.calls).toEqual(calls);
  });

  it('no window yet → false, so the caller opens one', () => {
    expect(focusWindow(null)).toBe(false);
  });
});
