// The one window: the Admin UI served by our own server, locked down (docs/architecture.md, "The desktop shell").
import { BrowserWindow, shell, type WebPreferences } from 'electron';
import { allowPermission, judgeNavigation } from './navigation.js';
import { careForWindow, type WindowCareDeps } from './window-care.js';
import { DEFAULT_SIZE, MIN_SIZE, type InitialBounds } from './window-state.js';

export interface MainWindowOptions {
  /** The first page, e.g. http://127.0.0.1:8090/_/ or the setup page with its token. */
  url: string;
  /** The server's origin, http://127.0.0.1:PORT: the only place the window may show. */
  origin: string;
  /** Absolute path of the built preload (dist/main/preload.cjs). */
  preload: string;
  icon?: string;
  /** Where it was left last time (main/window-state.ts). */
  bounds?: InitialBounds;
  /** Painted before the page: the admin UI's background in the current theme, so a dark UI never flashes white. */
  backgroundColor?: string;
  /** Crash, hang, failed load and unsaved-edit handling (main/window-care.ts). */
  care?: WindowCareDeps;
}

/** Written out in full, even where Electron's defaults agree, so a reader sees the whole policy. */
export function securePreferences(preload: string): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
  };
}

/** Only http(s) leaves for the system browser: a page must not make us launch arbitrary protocol handlers. */
function openOutside(url: string, origin: string): void {
  if (judgeNavigation(url, origin) !== 'deny') void shell.openExternal(url);
}

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const bounds = options.bounds ?? { ...DEFAULT_SIZE, maximized: false };
  const win = new BrowserWindow({
    title: 'Deskbase',
    x: bounds.x,
    y: bounds.y,
    width: bounds.width,
    height: bounds.height,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    backgroundColor: options.backgroundColor,
    show: false,
    icon: options.icon,
    autoHideMenuBar: false,
    webPreferences: securePreferences(options.preload),
  });
  const contents = win.webContents;
  contents.on('will-navigate', (event) => {
    const verdict = judgeNavigation(event.url, options.origin);
    if (verdict === 'allow') return;
    event.preventDefault();
    if (verdict === 'external') openOutside(event.url, options.origin);
  });
  // Server-side redirects stay on the server's origin too.
  contents.on('will-redirect', (event) => {
    if (judgeNavigation(event.url, options.origin) !== 'allow') event.preventDefault();
  });
  // No second Electron window, ever: links with target=_blank (even to our own API) open in the browser.
  contents.setWindowOpenHandler(({ url }) => {
    openOutside(url, options.origin);
    return { action: 'deny' };
  });
  contents.session.setPermissionRequestHandler((wc, permission, callback) => {
    callback(allowPermission(permission, wc.getURL(), options.origin));
  });
  if (options.care) careForWindow(win, contents, options.url, options.care);
  win.once('ready-to-show', () => {
    if (bounds.maximized) win.maximize();
    win.show();
  });
  // A failed load is answered by window-care's dialog (did-fail-load); the log says why as well.
  win.loadURL(options.url).catch((err: unknown) => console.error(`Could not load ${options.url}: ${String(err)}`));
  return win;
}
