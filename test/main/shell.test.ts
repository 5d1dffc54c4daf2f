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
    setLan: (enabled) => calls.push(`setLan:${enabled}`),
    quit: () => calls.push('quit'),
  };
  return { calls, actions };
}

const click = (item: MenuItemConstructorOptions) => (item.click as () => void)();
const byId = (items: MenuItemConstructorOptions[], id: string) => items.find((i) => i.id === id)!;

describe('menus', () => {
  it('offers the five commands in order', () => {
    const items = commandItems({ lan: false }, recordingActions().actions);
    expect(items.filter((i) => i.id).map((i) => i.id)).toEqual(['open-ui', 'copy-api-url', 'open-data-folder', 'lan', 'quit']);
  });

  it.each([
    { id: 'open-ui', lan: false, call: 'openUi' },
    { id: 'copy-api-url', lan: false, call: 'copyApiUrl' },
    { id: 'open-data-folder', lan: false, call: 'openDataFolder' },
    { id: 'lan', lan: false, call: 'setLan:true' },
    { id: 'lan', lan: true, call: 'setLan:false' },
    { id: 'quit', lan: false, call: 'quit' },
  ])('$id (lan=$lan) runs $call', ({ id, lan, call }) => {
    const { calls, actions } = recordingActions();
    click(byId(trayTemplate({ lan }, actions), id));
    expect(calls).toEqual([call]);
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

  it('holds the quit, closes the server once, then exits 0', async () => {
    let release = () => undefined as void;
    const { events, shutdown, quitEvent } = harness(() => new Promise<void>((r) => (release = r)));
    const first = quitEvent();
    shutdown.onBeforeQuit(first);
    const second = quitEvent();
    shutdown.onBeforeQuit(second);
    shutdown.onSystemShutdown(quitEvent());
    expect(first.prevented && second.prevented).toBe(true);
    expect(events).toEqual(['close:start']);
    release();
    await shutdown.stop();
    expect(events).toEqual(['close:start', 'close:done', 'exit:0']);
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
