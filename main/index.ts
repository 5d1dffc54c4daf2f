// The Electron main process: thin glue between Electron's events and our own functions. Built by
// scripts/build.mjs into one CommonJS file, dist/main/index.cjs, with the server inside it: Electron
// then loads no ES module from app.asar (an area with open Electron bugs), and sql.js finds its wasm
// beside the bundle.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { app, clipboard, dialog, ipcMain, powerMonitor, shell, type BrowserWindow } from 'electron';
import QRCode from 'qrcode';
import { startServer, type RunningServer } from '../server/index.js';
import { createHandlers, createMenuActions, type ActionDeps } from './actions.js';
import { ALL_INTERFACES, startDesktopServer } from './desktop-server.js';
import { registerIpc } from './ipc.js';
import { createLanSwitch } from './lan.js';
import { desktopPaths, userDataDir, type DesktopPaths } from './paths.js';
import { CHANNELS } from './preload-api.js';
import { loadSettings, saveSettings } from './settings.js';
import { createShutdown, type PreventableEvent } from './shutdown.js';
import { focusWindow } from './single-instance.js';
import { installMenus, type DesktopMenus } from './tray.js';
import { createMainWindow } from './window.js';
import { errorText } from './error-text.js';

/** dist/ (or app.asar/dist/ when packaged): main/ and renderer/ sit side by side. */
const DIST = join(__dirname, '..');

interface Shell {
  window: BrowserWindow | null;
  openUi(): void;
}

async function boot(paths: DesktopPaths, state: Shell): Promise<void> {
  const settings = await loadSettings(paths.settingsFile);
  const uiDir = join(DIST, 'renderer');
  const server: RunningServer = await startDesktopServer({
    startServer,
    dataDir: paths.dataDir,
    uiDir: existsSync(join(uiDir, 'index.html')) ? uiDir : null,
    lan: settings.lan,
    // A token issued later (the first one expired) goes straight to the window too.
    onSetupToken: (_token, url) => {
      // A failed load leaves Chromium's error page in the window; nothing more to do here.
      if (state.window && !state.window.isDestroyed()) state.window.loadURL(url).catch(() => undefined);
    },
  });
  console.log(`Deskbase is running at ${server.url}/_/ (data folder: ${paths.dataDir})`);
  const origin = () => new URL(server.url).origin;

  const shutdown = createShutdown({ close: () => server.close(), exit: (code) => app.exit(code), log: (line) => console.error(line) });
  app.on('before-quit', (event) => shutdown.onBeforeQuit(event));
  // Linux and macOS: asks the OS to wait while we checkpoint. Windows uses the window's session-end.
  powerMonitor.on('shutdown', (event?: PreventableEvent) => shutdown.onSystemShutdown(event));
  process.on('SIGTERM', () => void shutdown.stop());
  process.on('SIGINT', () => void shutdown.stop());
  app.on('window-all-closed', () => {
    // macOS apps stay in the dock with their server running; elsewhere closing the window quits.
    if (process.platform !== 'darwin') app.quit();
  });

  const openWindow = () => {
    const win = createMainWindow({
      // While no superuser exists, the window opens on the setup page with its token: nothing to copy from a log.
      url: server.setupUrl() ?? `${server.url}/_/`,
      origin: origin(),
      preload: join(__dirname, 'preload.cjs'),
      icon: join(__dirname, 'icon.png'),
    });
    win.on('session-end', () => void shutdown.stop());
    win.on('closed', () => {
      if (state.window === win) state.window = null;
    });
    state.window = win;
  };
  state.openUi = () => {
    if (!focusWindow(state.window)) openWindow();
  };
  app.on('activate', () => state.openUi());

  let menus: DesktopMenus | null = null;
  const lan = createLanSwitch({
    server,
    remember: (enabled) => saveSettings(paths.settingsFile, { ...settings, lan: enabled }),
    qr: (text) => QRCode.toDataURL(text, { margin: 1, width: 256 }),
    onChange: (lanState) => {
      menus?.refresh({ lan: lanState.enabled });
      state.window?.webContents.send(CHANNELS.lanChanged, lanState);
    },
  });
  const deps: ActionDeps = {
    server,
    lan,
    dataDir: paths.dataDir,
    writeClipboard: (text) => clipboard.writeText(text),
    openPath: (path) => shell.openPath(path),
    openUi: () => state.openUi(),
    quit: () => app.quit(),
    reportError: (title, err) => dialog.showErrorBox(title, errorText(err)),
    onLanUnchanged: () => menus?.refresh({ lan: server.host === ALL_INTERFACES }),
  };
  const handlers = createHandlers(deps);
  registerIpc(ipcMain, origin, handlers);
  menus = installMenus(createMenuActions(deps, handlers), { lan: server.host === ALL_INTERFACES }, join(__dirname, 'icon.png'), process.platform);
  state.openUi();
}

function main(): void {
  // Before ready: one userData folder whether packaged or run from a checkout (see paths.ts).
  app.setPath('userData', userDataDir(app.getPath('appData')));
  if (!app.requestSingleInstanceLock()) {
    // Another Deskbase is running on this data: it gets 'second-instance' and shows its window.
    app.quit();
    return;
  }
  const paths = desktopPaths(app.getPath('userData'), process.env.DESKBASE_DATA_DIR);
  const state: Shell = { window: null, openUi: () => undefined };
  app.on('second-instance', () => state.openUi());
  // No <webview> anywhere, whatever a page tries.
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
  app
    .whenReady()
    .then(() => boot(paths, state))
    .catch((err: unknown) => {
      dialog.showErrorBox('Deskbase could not start', errorText(err));
      app.exit(1);
    });
}

main();
