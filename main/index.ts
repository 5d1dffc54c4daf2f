// The Electron main process: thin glue between Electron's events and our own functions. Built by
// scripts/build.mjs into one CommonJS file, dist/main/index.cjs, with the server inside it: Electron
// then loads no ES module from app.asar (an area with open Electron bugs), and sql.js finds its wasm
// beside the bundle.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  app, clipboard, crashReporter, dialog, ipcMain, nativeTheme, powerMonitor, screen, shell, type BrowserWindow, type MessageBoxOptions,
} from 'electron';
import QRCode from 'qrcode';
import { hooksDirOf, migrationsDirOf, startServer, type RunningServer } from '../server/index.js';
import { createHandlers, createMenuActions, type ActionDeps } from './actions.js';
import { startsHidden } from './background.js';
import { ALL_INTERFACES, portNotice, startDesktopServer } from './desktop-server.js';
import { errorText } from './error-text.js';
import { registerIpc } from './ipc.js';
import { createLanSwitch } from './lan.js';
import { openLogFile } from './log-file.js';
import { isOwnCertificate } from './own-certificate.js';
import { CRASH_REPORTER_OPTIONS, installLogging } from './logging.js';
import { applyOpenAtLogin, autostartDir } from './login-item.js';
import type { DesktopActions, MenuState } from './menu.js';
import { desktopPaths, userDataDir, type DesktopPaths } from './paths.js';
import { createPreferences } from './preferences.js';
import { CHANNELS } from './preload-api.js';
import { createSettingsStore, loadSettings } from './settings.js';
import { createShutdown, type PreventableEvent } from './shutdown.js';
import { focusWindow } from './single-instance.js';
import { windowBackground } from './theme.js';
import { installMenus, type DesktopMenus } from './tray.js';
import { createUpdates, type UpdaterLike } from './updates.js';
import { createMainWindow } from './window.js';
import type { DialogOptions } from './window-care.js';
import { initialBounds, trackWindowState } from './window-state.js';

/** dist/ (or app.asar/dist/ when packaged): main/ and renderer/ sit side by side. */
const DIST = join(__dirname, '..');

interface Shell {
  window: BrowserWindow | null;
  openUi(): void;
  logsDir: string;
}

/** electron-updater (bundled), in a packaged app only: a checkout has nothing to update. null when it cannot load. */
async function loadUpdater(): Promise<UpdaterLike | null> {
  if (!app.isPackaged) return null;
  try {
    return (await import('electron-updater')).autoUpdater as UpdaterLike;
  } catch (err) {
    console.warn(`Deskbase: updates are off (${errorText(err)}).`);
    return null;
  }
}

/** dialog.showMessageBox, answered with the index of the button chosen. */
function ask(win: BrowserWindow | null, options: DialogOptions | MessageBoxOptions): Promise<number> {
  const shown = win && !win.isDestroyed() ? dialog.showMessageBox(win, options) : dialog.showMessageBox(options);
  return shown.then((answer) => answer.response);
}

async function boot(paths: DesktopPaths, state: Shell): Promise<void> {
  const settings = createSettingsStore(paths.settingsFile, await loadSettings(paths.settingsFile));
  nativeTheme.themeSource = settings.get().theme;
  const uiDir = join(DIST, 'renderer');
  const server: RunningServer = await startDesktopServer({
    startServer,
    dataDir: paths.dataDir,
    uiDir: existsSync(join(uiDir, 'index.html')) ? uiDir : null,
    lan: settings.get().lan,
    https: settings.get().https,
    preferredPort: settings.get().port,
    // A token issued later (the first one expired) goes straight to the window too.
    onSetupToken: (_token, url) => {
      // A failed load is answered by the window's own dialog (main/window-care.ts).
      if (state.window && !state.window.isDestroyed()) state.window.loadURL(url).catch(() => undefined);
    },
  });
  console.log(`Deskbase is running at ${server.url}/_/ (data folder: ${paths.dataDir}, logs: ${state.logsDir})`);
  const notice = portNotice(settings.get().port, server.port);
  if (notice) console.warn(notice);
  const origin = () => new URL(server.url).origin;
  // Over HTTPS the window accepts the server's own certificate, on the server's origin only.
  const ownCertificate = () => {
    try {
      return readFileSync(join(paths.dataDir, 'tls', 'cert.pem'), 'utf8');
    } catch {
      return null;
    }
  };
  app.on('certificate-error', (event, _contents, url, _error, certificate, callback) => {
    if (server.tls && isOwnCertificate(url, certificate.data, origin(), ownCertificate())) {
      event.preventDefault();
      callback(true);
    } else callback(false);
  });

  let menus: DesktopMenus | null = null;
  const menuState = (): MenuState => ({
    lan: server.host === ALL_INTERFACES,
    keepRunning: process.platform === 'darwin' || menus?.hasTray ? preferences.keepRunning() : undefined,
    openAtLogin: settings.get().openAtLogin,
    update: updates.enabled ? { ready: updates.ready() } : undefined,
  });
  const refreshMenus = () => menus?.refresh(menuState());

  const updates = createUpdates({
    updater: await loadUpdater(),
    channel: settings.get().updateChannel,
    log: (line) => console.log(line),
    onReady: () => refreshMenus(),
  });
  const preferences = createPreferences({
    store: settings,
    platform: process.platform,
    hasTray: () => menus?.hasTray ?? false,
    portInUse: () => server.port,
    httpsInUse: () => server.tls !== null,
    setTheme: (theme) => (nativeTheme.themeSource = theme),
    setOpenAtLogin: (enabled) =>
      applyOpenAtLogin(enabled, {
        platform: process.platform,
        setLoginItemSettings: (s) => app.setLoginItemSettings(s),
        autostartDir: autostartDir(process.env),
        command: [process.env.APPIMAGE ?? process.execPath, ...(app.isPackaged ? [] : [app.getAppPath()])],
      }),
    setUpdateChannel: (channel) => updates.setChannel(channel),
    onChange: (prefs) => {
      refreshMenus();
      state.window?.webContents.send(CHANNELS.preferencesChanged, prefs);
    },
  });

  const shutdown = createShutdown({
    close: () => {
      updates.stop();
      return server.close();
    },
    // The installer runs only now: the server is closed, the data folder's lock released.
    beforeExit: (code) => updates.beforeExit(code),
    exit: (code) => app.exit(code),
    log: (line) => console.error(line),
  });
  // A quit the user asks for closes the window first (which may ask about an unsaved edit); the server
  // is closed once every window is gone.
  app.on('before-quit', () => shutdown.onBeforeQuit());
  app.on('will-quit', (event) => shutdown.onWillQuit(event));
  // Linux and macOS: asks the OS to wait while we checkpoint. Windows uses the window's session-end.
  powerMonitor.on('shutdown', (event?: PreventableEvent) => shutdown.onSystemShutdown(event));
  process.on('SIGTERM', () => void shutdown.stop());
  process.on('SIGINT', () => void shutdown.stop());
  app.on('window-all-closed', () => {
    // Background mode keeps the server running in the tray; otherwise closing the window quits.
    if (shutdown.shouldQuitWhenAllClosed(preferences.keepRunning())) app.quit();
  });
  // The GPU or a utility process gone: Chromium restarts what it can; the log says what happened.
  app.on('child-process-gone', (_event, details) => console.error(`A ${details.type} process is gone (${details.reason}, exit code ${details.exitCode}).`));

  let actions: DesktopActions | null = null;
  const openWindow = async () => {
    const setupUrl = await server.setupUrl();
    if (focusWindow(state.window)) return; // opened meanwhile
    const win: BrowserWindow = createMainWindow({
      // While no superuser exists, the window opens on the setup page with its token: nothing to copy from a log.
      url: setupUrl ?? `${server.url}/_/`,
      origin: origin(),
      preload: join(__dirname, 'preload.cjs'),
      icon: join(__dirname, 'icon.png'),
      bounds: initialBounds(settings.get().window, screen.getAllDisplays().map((d) => d.workArea)),
      backgroundColor: windowBackground(nativeTheme.shouldUseDarkColors),
      care: {
        ask: (options) => ask(win, options),
        log: (line) => console.error(line),
        openLogsFolder: () => actions?.openLogsFolder(),
        quit: () => app.quit(),
        onEditKept: () => shutdown.onQuitCalledOff(),
      },
    });
    trackWindowState(win, (bounds) => {
      settings.update({ window: bounds }).catch((err: unknown) => console.error(`Deskbase: could not save the window's place: ${errorText(err)}`));
    });
    win.on('session-end', () => void shutdown.stop());
    win.on('closed', () => {
      if (state.window === win) state.window = null;
    });
    state.window = win;
  };
  state.openUi = () => {
    if (!focusWindow(state.window)) void openWindow();
  };
  app.on('activate', () => state.openUi());

  const lan = createLanSwitch({
    server,
    remember: async (enabled) => void (await settings.update({ lan: enabled })),
    qr: (text) => QRCode.toDataURL(text, { margin: 1, width: 256 }),
    onChange: (lanState) => {
      refreshMenus();
      state.window?.webContents.send(CHANNELS.lanChanged, lanState);
    },
  });
  const deps: ActionDeps = {
    server,
    lan,
    dataDir: paths.dataDir,
    logsDir: state.logsDir,
    hooksDir: hooksDirOf({ dir: paths.dataDir }) as string,
    migrationsDir: migrationsDirOf({ dir: paths.dataDir }) as string,
    ensureFolder: async (path) => (await mkdir(path, { recursive: true })) !== undefined,
    writeClipboard: (text) => clipboard.writeText(text),
    openPath: (path) => shell.openPath(path),
    openUi: () => state.openUi(),
    quit: () => app.quit(),
    reportError: (title, err) => dialog.showErrorBox(title, errorText(err)),
    reportInfo: (title, message) => void ask(state.window, { type: 'info', title: 'Deskbase', message: title, detail: message, buttons: ['OK'] }),
    onLanUnchanged: () => refreshMenus(),
    preferences,
    updates,
    onPreferencesUnchanged: () => refreshMenus(),
    restart: () => {
      // The new process starts once this one has exited, so it finds the data folder's lock free.
      app.relaunch();
      app.quit();
    },
  };
  const handlers = createHandlers(deps);
  registerIpc(ipcMain, origin, handlers);
  actions = createMenuActions(deps, handlers);
  menus = installMenus(actions, menuState(), { icon: join(__dirname, 'icon.png'), template: join(__dirname, 'trayTemplate.png') }, process.platform);
  refreshMenus();
  updates.start();

  // Started at login with background mode on: the server runs, the window waits for the tray.
  const atLogin = process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin === true;
  if (startsHidden(process.argv, atLogin, preferences.keepRunning())) console.log('Deskbase started in the background (open it from the tray).');
  else state.openUi();
  if (notice) void ask(state.window, { type: 'info', title: 'Deskbase', message: `Deskbase is on port ${server.port} this time.`, detail: notice, buttons: ['OK'] });
}

function main(): void {
  // Before ready: one userData folder whether packaged or run from a checkout (see paths.ts).
  app.setPath('userData', userDataDir(app.getPath('appData')));
  // The logs folder: ~/Library/Logs/Deskbase on macOS, userData/logs elsewhere (main/log-file.ts).
  app.setAppLogsPath();
  const logsDir = app.getPath('logs');
  const file = openLogFile({ dir: logsDir, onFailure: (message) => process.stderr.write(`${message}\n`) });
  installLogging({
    file,
    console,
    process,
    onUncaught: (error) => {
      if (!app.isReady()) return;
      void ask(null, {
        type: 'error', title: 'Deskbase', message: 'Deskbase ran into an unexpected error.',
        detail: `${errorText(error)}\n\nIt keeps running, and your data is safe. The log in ${logsDir} has the details.`, buttons: ['OK'],
      });
    },
  });
  // Minidumps of crashed processes stay in app.getPath('crashDumps'); nothing is uploaded.
  crashReporter.start(CRASH_REPORTER_OPTIONS);
  if (!app.requestSingleInstanceLock()) {
    // Another Deskbase is running on this data: it gets 'second-instance' and shows its window.
    app.quit();
    return;
  }
  const paths = desktopPaths(app.getPath('userData'), process.env.DESKBASE_DATA_DIR);
  const state: Shell = { window: null, openUi: () => undefined, logsDir };
  app.on('second-instance', () => state.openUi());
  // No <webview> anywhere, whatever a page tries.
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
  app
    .whenReady()
    .then(() => boot(paths, state))
    .catch((err: unknown) => {
      console.error(`Deskbase could not start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      dialog.showErrorBox('Deskbase could not start', `${errorText(err)}\n\nThe log in ${logsDir} has the details.`);
      app.exit(1);
    });
}

main();
