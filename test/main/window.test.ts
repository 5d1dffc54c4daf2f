// The window's security (main/window.ts, main/navigation.ts) with a test double of Electron's
// BrowserWindow: Electron's binary cannot run here (docs/architecture.md, "Toolchain facts").
import { beforeEach, describe, expect, it, vi } from 'vitest';

type Listener = (...args: unknown[]) => unknown;

const electron = vi.hoisted(() => {
  class FakeWebContents {
    listeners = new Map<string, Listener>();
    openHandler: Listener | null = null;
    permissionHandler: Listener | null = null;
    session = { setPermissionRequestHandler: (fn: Listener) => (this.permissionHandler = fn) };
    on(event: string, fn: Listener) {
      this.listeners.set(event, fn);
      return this;
    }
    setWindowOpenHandler(fn: Listener) {
      this.openHandler = fn;
    }
  }
  class FakeBrowserWindow {
    static created: FakeBrowserWindow[] = [];
    webContents = new FakeWebContents();
    loaded: string[] = [];
    onceListeners = new Map<string, Listener>();
    shown = false;
    constructor(public options: Record<string, unknown>) {
      FakeBrowserWindow.created.push(this);
    }
    loadURL(url: string) {
      this.loaded.push(url);
      return Promise.resolve();
    }
    once(event: string, fn: Listener) {
      this.onceListeners.set(event, fn);
      return this;
    }
    show() {
      this.shown = true;
    }
  }
  return { BrowserWindow: FakeBrowserWindow, shell: { openExternal: vi.fn(async () => undefined) } };
});

vi.mock('electron', () => electron);

const { createMainWindow, securePreferences } = await import('../../main/window.js');
const { allowPermission, judgeNavigation } = await import('../../main/navigation.js');

const ORIGIN = 'http://127.0.0.1:8090';

function openWindow(url = `${ORIGIN}/_/`) {
  createMainWindow({ url, origin: ORIGIN, preload: '/app/dist/main/preload.cjs', icon: '/app/dist/main/icon.png' });
  return electron.BrowserWindow.created.at(-1)!;
}

function navigate(win: ReturnType<typeof openWindow>, event: 'will-navigate' | 'will-redirect', url: string) {
  let prevented = false;
  win.webContents.listeners.get(event)!({ url, preventDefault: () => (prevented = true) });
  return prevented;
}

beforeEach(() => {
  electron.shell.openExternal.mockClear();
  electron.BrowserWindow.created.length = 0;
});

describe('judgeNavigation', () => {
  it.each([
    { target: `${ORIGIN}/_/`, verdict: 'allow' },
    { target: `${ORIGIN}/_/#/collections`, verdict: 'allow' },
    { target: `${ORIGIN}/api/health`, verdict: 'allow' },
    { target: 'http://127.0.0.1:8091/_/', verdict: 'external' },
    { target: 'http://localhost:8090/_/', verdict: 'external' },
    { target: 'https://127.0.0.1:8090/_/', verdict: 'external' },
    { target: 'https://pocketbase.io/docs/', verdict: 'external' },
    { target: 'file:///etc/passwd', verdict: 'deny' },
    { target: 'javascript:alert(1)', verdict: 'deny' },
    { target: 'mailto:ada@example.com', verdict: 'deny' },
    { target: 'ms-settings:privacy', verdict: 'deny' },
    { target: 'not a url', verdict: 'deny' },
  ])('$target → $verdict', ({ target, verdict }) => {
    expect(judgeNavigation(target, ORIGIN)).toBe(verdict);
  });
});

describe('the main window', () => {
  it('writes out the locked-down web preferences', () => {
    const win = openWindow();
    expect(win.options.webPreferences).toEqual(securePreferences('/app/dist/main/preload.cjs'));
    expect(win.options.webPreferences).toMatchObject({
      contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false, webSecurity: true,
      preload: '/app/dist/main/preload.cjs',
    });
    expect(win.options.show).toBe(false);
  });

  it('loads the page it is given (the setup page with its token on first run) and shows when ready', () => {
    const win = openWindow(`${ORIGIN}/_/#/setup?token=abc`);
    expect(win.loaded).toEqual([`${ORIGIN}/_/#/setup?token=abc`]);
    expect(win.shown).toBe(false);
    win.onceListeners.get('ready-to-show')!();
    expect(win.shown).toBe(true);
  });

  it.each([
    { url: `${ORIGIN}/_/#/collections`, prevented: false, external: false },
    { url: 'https://pocketbase.io/docs/', prevented: true, external: true },
    { url: 'http://192.168.1.10:8090/_/', prevented: true, external: true },
    { url: 'file:///etc/passwd', prevented: true, external: false },
    { url: 'javascript:alert(1)', prevented: true, external: false },
  ])('will-navigate to $url: prevented=$prevented, opened in the browser=$external', ({ url, prevented, external }) => {
    const win = openWindow();
    expect(navigate(win, 'will-navigate', url)).toBe(prevented);
    expect(electron.shell.openExternal.mock.calls).toEqual(external ? [[url]] : []);
  });

  it.each([
    { url: `${ORIGIN}/_/`, prevented: false },
    { url: 'https://example.com/', prevented: true },
  ])('will-redirect to $url: prevented=$prevented, never opened outside', ({ url, prevented }) => {
    const win = openWindow();
    expect(navigate(win, 'will-redirect', url)).toBe(prevented);
    expect(electron.shell.openExternal).not.toHaveBeenCalled();
  });

  it.each([
    { url: 'https://pocketbase.io/', opened: true },
    { url: `${ORIGIN}/api/collections`, opened: true },
    { url: 'file:///etc/passwd', opened: false },
    { url: 'smb://server/share', opened: false },
  ])('window.open($url) never makes an Electron window; opened in the browser=$opened', ({ url, opened }) => {
    const win = openWindow();
    expect(win.webContents.openHandler!({ url })).toEqual({ action: 'deny' });
    expect(electron.shell.openExternal.mock.calls).toEqual(opened ? [[url]] : []);
  });

  it.each([
    { permission: 'clipboard-sanitized-write', page: `${ORIGIN}/_/`, granted: true },
    { permission: 'clipboard-sanitized-write', page: 'https://evil.example/', granted: false },
    { permission: 'media', page: `${ORIGIN}/_/`, granted: false },
    { permission: 'geolocation', page: `${ORIGIN}/_/`, granted: false },
    { permission: 'notifications', page: `${ORIGIN}/_/`, granted: false },
    { permission: 'openExternal', page: `${ORIGIN}/_/`, granted: false },
  ])('permission $permission for $page: granted=$granted', ({ permission, page, granted }) => {
    const win = openWindow();
    const answers: boolean[] = [];
    win.webContents.permissionHandler!({ getURL: () => page }, permission, (ok: boolean) => answers.push(ok));
    expect(answers).toEqual([granted]);
    expect(allowPermission(permission, page, ORIGIN)).toBe(granted);
  });
});
