// The tray's Electron glue (main/tray.ts) with a test double of Electron's Tray, Menu and nativeImage:
// the macOS menu bar gets the template image, other systems the app icon at their size, and a desktop
// without a tray is reported so background mode turns off (main/background.ts).
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DesktopActions } from '../../main/menu.js';

const electron = vi.hoisted(() => {
  const state = { trayFails: false, images: [] as Array<{ path: string; template: boolean; size: number | null }>, trays: 0 };
  class FakeImage {
    entry: { path: string; template: boolean; size: number | null };
    constructor(path: string) {
      this.entry = { path, template: false, size: null };
      state.images.push(this.entry);
    }
    setTemplateImage(on: boolean) {
      this.entry.template = on;
    }
    resize(size: { width: number }) {
      this.entry.size = size.width;
      return this;
    }
  }
  class Tray {
    constructor() {
      if (state.trayFails) throw new Error('no status area');
      state.trays++;
    }
    setToolTip() {}
    on() {}
    setContextMenu() {}
    destroy() {}
  }
  return {
    state,
    Tray,
    Menu: { buildFromTemplate: (t: unknown) => t, setApplicationMenu: () => undefined },
    nativeImage: { createFromPath: (p: string) => new FakeImage(p) },
  };
});

vi.mock('electron', () => electron);

const { installMenus } = await import('../../main/tray.js');

const actions = new Proxy({}, { get: () => () => undefined }) as DesktopActions;
const icons = { icon: '/app/dist/main/icon.png', template: '/app/dist/main/trayTemplate.png' };

beforeEach(() => {
  electron.state.trayFails = false;
  electron.state.images.length = 0;
  electron.state.trays = 0;
});

describe('the tray icon', () => {
  it('macOS: the template image, marked as a template so the menu bar tints it', () => {
    const menus = installMenus(actions, { lan: false }, icons, 'darwin');
    expect(menus.hasTray).toBe(true);
    expect(electron.state.images).toEqual([{ path: icons.template, template: true, size: null }]);
  });

  it.each([
    { platform: 'win32' as const, size: 16 },
    { platform: 'linux' as const, size: 22 },
  ])('$platform: the app icon at $size px', ({ platform, size }) => {
    installMenus(actions, { lan: false }, icons, platform);
    expect(electron.state.images).toEqual([{ path: icons.icon, template: false, size }]);
  });

  it('a desktop without a tray is reported, and the menus still work', () => {
    electron.state.trayFails = true;
    const errors: unknown[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...a) => void errors.push(a.join(' ')));
    const menus = installMenus(actions, { lan: false }, icons, 'linux');
    spy.mockRestore();
    expect(menus.hasTray).toBe(false);
    expect(errors).toEqual(['Deskbase: no tray icon (no status area).']);
    expect(() => menus.refresh({ lan: true })).not.toThrow();
  });
});
