// A stand-in for the `electron` module, so the built main process (dist/main/index.cjs) can run under
// plain Node in test/main/build.test.ts: `node --require test/main/fake-electron.cjs dist/main/index.cjs`.
// It reports what the app does as JSON lines starting with "FAKE " on stdout, and takes commands on
// stdin: `invoke <channel> <senderUrl> <json args>`, `second-instance`, `close-window`, `quit`, `os-shutdown`,
// `hold-unload` (the page has an unsaved edit: its beforeunload holds), `answer <n>` (the user picks button
// n of the newest open dialog), `renderer-gone`, `hang`, `respond`, `fail-load`, `move <x> <y> <w> <h>`,
// `throw` (an uncaught exception in the main process).
'use strict';
const Module = require('node:module');
const { EventEmitter } = require('node:events');
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const readline = require('node:readline');

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'electron' ? __filename : resolveFilename.call(this, request, ...rest);
};

const report = (entry) => process.stdout.write(`FAKE ${JSON.stringify(entry)}\n`);
const appData = process.env.FAKE_APPDATA;
const paths = { appData, userData: join(appData, 'deskbase') };

/** Dialogs waiting for an `answer`, oldest first (`answer` takes the newest). */
const dialogs = [];

class App extends EventEmitter {
  constructor() {
    super();
    this.isPackaged = process.env.FAKE_PACKAGED === '1';
    this.ready = false;
  }
  isReady() {
    return this.ready;
  }
  getAppPath() {
    return process.cwd();
  }
  setAppLogsPath() {
    paths.logs = join(paths.userData, 'logs');
  }
  getVersion() {
    return process.env.FAKE_VERSION ?? '0.1.0';
  }
  getName() {
    return 'Deskbase';
  }
  relaunch() {
    report({ type: 'relaunch' });
  }
  getLoginItemSettings() {
    return { openAtLogin: false, wasOpenedAtLogin: false };
  }
  setLoginItemSettings(settings) {
    report({ type: 'login-item', settings });
  }
  getPath(name) {
    return paths[name];
  }
  setPath(name, value) {
    paths[name] = value;
    report({ type: 'setPath', name, value });
  }
  requestSingleInstanceLock() {
    return process.env.FAKE_LOCKED !== '1';
  }
  whenReady() {
    this.ready = true;
    return Promise.resolve();
  }
  // As Electron does: before-quit, then every window is asked to close (a held unload calls the quit off),
  // then will-quit; 'quit' (with the exit code) last.
  quit() {
    const before = { prevented: false, preventDefault() { this.prevented = true; } };
    this.emit('before-quit', before);
    if (before.prevented) return;
    this.quitting = true;
    for (const win of [...windows]) {
      if (!win.tryClose()) {
        this.quitting = false;
        report({ type: 'quit-called-off' });
        return;
      }
    }
    this.quitting = false;
    const event = { prevented: false, preventDefault() { this.prevented = true; } };
    this.emit('will-quit', event);
    report({ type: 'quit', prevented: event.prevented });
    if (!event.prevented) {
      this.emit('quit', {}, 0);
      process.exit(0);
    }
  }
  // app.exit: windows destroyed without asking, no before-quit or will-quit, but 'quit' with the code.
  exit(code) {
    for (const win of [...windows]) win.destroy();
    this.emit('quit', {}, code);
    report({ type: 'exit', code });
    process.exit(code);
  }
}
const app = new App();
const windows = [];

class WebContents extends EventEmitter {
  constructor() {
    super();
    this.session = { setPermissionRequestHandler: () => undefined };
    this.url = '';
    this.holdsUnload = false;
    this.destroyed = false;
  }
  setWindowOpenHandler() {}
  send(channel, payload) {
    report({ type: 'send', channel, payload });
  }
  getURL() { return this.url; }
  isDestroyed() { return this.destroyed; }
  loadURL(url) {
    this.url = url;
    report({ type: 'load', url });
    return Promise.resolve();
  }
  reload() { report({ type: 'reload' }); }
  forcefullyCrashRenderer() { report({ type: 'crash-renderer' }); }
}

class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    this.webContents = new WebContents();
    this.destroyed = false;
    this.bounds = { x: options.x ?? 100, y: options.y ?? 100, width: options.width, height: options.height };
    this.maximized = false;
    windows.push(this);
    report({
      type: 'window', webPreferences: options.webPreferences, iconExists: existsSync(options.icon),
      bounds: { x: options.x, y: options.y, width: options.width, height: options.height }, backgroundColor: options.backgroundColor,
    });
  }
  loadURL(url) {
    return this.webContents.loadURL(url);
  }
  isDestroyed() { return this.destroyed; }
  isMinimized() { return false; }
  isMaximized() { return this.maximized; }
  maximize() { this.maximized = true; }
  getNormalBounds() { return this.bounds; }
  restore() {}
  show() { report({ type: 'show' }); }
  focus() { report({ type: 'focus' }); }
  /** 'close', then the page's beforeunload: a held one emits will-prevent-unload, and unless that is prevented the window stays. */
  tryClose() {
    this.emit('close', { preventDefault() {} });
    if (this.webContents.holdsUnload) {
      const event = { prevented: false, preventDefault() { this.prevented = true; } };
      this.webContents.emit('will-prevent-unload', event);
      if (!event.prevented) {
        report({ type: 'close-held' });
        return false;
      }
    }
    this.destroy();
    return true;
  }
  close() {
    if (this.tryClose() && windows.length === 0 && !app.quitting) app.emit('window-all-closed');
  }
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.webContents.destroyed = true;
    windows.splice(windows.indexOf(this), 1);
    report({ type: 'closed' });
    this.emit('closed');
  }
}

const handlers = new Map();
const ipcMain = {
  handle(channel, fn) { handlers.set(channel, fn); },
  removeHandler(channel) { handlers.delete(channel); },
};

class Tray extends EventEmitter {
  constructor() {
    super();
    report({ type: 'tray' });
  }
  setToolTip() {}
  setContextMenu(menu) {
    this.menu = menu;
    report({ type: 'tray-menu', ids: menu.filter((i) => i.id).map((i) => i.id) });
  }
  destroy() {}
}

const Menu = {
  buildFromTemplate: (template) => template,
  setApplicationMenu: (template) => report({ type: 'app-menu', labels: template.map((m) => m.label ?? m.role) }),
};
const powerMonitor = new EventEmitter();
// A packaged app's resources folder (app-update.yml) when FAKE_RESOURCES is set.
if (process.env.FAKE_RESOURCES) process.resourcesPath = process.env.FAKE_RESOURCES;
// electron-updater downloads through Electron's net module: plain node:http here (the test's feed is local).
const net = {
  request(options) {
    const { session: _session, redirect: _redirect, protocol, ...rest } = options;
    return require(protocol === 'https:' ? 'node:https' : 'node:http').request({ ...rest, protocol });
  },
};
let tray = null;
const TrayClass = class extends Tray {
  constructor(...args) {
    super(...args);
    tray = this; // eslint-disable-line @typescript-eslint/no-this-alias -- the test double hands the one tray it made to the commands

  }
};

function showMessageBox(...args) {
  const options = args.length > 1 ? args[1] : args[0];
  report({ type: 'dialog', message: options.message, detail: options.detail, buttons: options.buttons });
  return new Promise((resolve) => {
    const entry = { resolve: (response) => resolve({ response, checkboxChecked: false }) };
    dialogs.push(entry);
    options.signal?.addEventListener('abort', () => {
      dialogs.splice(dialogs.indexOf(entry), 1);
      report({ type: 'dialog-closed' });
      resolve({ response: options.cancelId ?? 0, checkboxChecked: false });
    });
  });
}

module.exports = {
  app, BrowserWindow, ipcMain, Menu, Tray: TrayClass, powerMonitor,
  nativeImage: { createFromPath: (p) => ({ resize: () => ({ path: p }), setTemplateImage() {} }) },
  nativeTheme: Object.assign(new EventEmitter(), { themeSource: 'system', shouldUseDarkColors: false }),
  net,
  session: { fromPartition: () => ({}) },
  autoUpdater: new EventEmitter(),
  screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
  crashReporter: { start: (options) => report({ type: 'crash-reporter', options }) },
  clipboard: { writeText: (text) => report({ type: 'clipboard', text }) },
  shell: { openPath: async (p) => (report({ type: 'openPath', path: p }), ''), openExternal: async () => undefined },
  dialog: { showErrorBox: (title, text) => report({ type: 'error', title, text }), showMessageBox },
};

const commands = readline.createInterface({ input: process.stdin });
commands.on('line', async (line) => {
  const [command, channel, senderUrl, json] = line.split(' ');
  if (command === 'invoke') {
    const handler = handlers.get(channel);
    try {
      const result = await handler({ senderFrame: { url: senderUrl } }, ...JSON.parse(json ?? '[]'));
      report({ type: 'result', channel, result: result ?? null });
    } catch (err) {
      report({ type: 'result', channel, error: err.message });
    }
  } else if (command === 'second-instance') app.emit('second-instance');
  else if (command === 'close-window') windows[0]?.close();
  else if (command === 'quit') app.quit();
  else if (command === 'tray-click') tray?.menu.find((i) => i.id === channel)?.click();
  else if (command === 'hold-unload') windows[0].webContents.holdsUnload = true;
  else if (command === 'answer') dialogs.pop()?.resolve(Number(channel));
  else if (command === 'renderer-gone') windows[0].webContents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 11 });
  else if (command === 'hang') windows[0].webContents.emit('unresponsive');
  else if (command === 'respond') windows[0].webContents.emit('responsive');
  else if (command === 'fail-load') windows[0].webContents.emit('did-fail-load', {}, -102, 'ERR_CONNECTION_REFUSED', windows[0].webContents.url, true);
  else if (command === 'move') {
    const [x, y, width, height] = line.split(' ').slice(1).map(Number);
    windows[0].bounds = { x, y, width, height };
    windows[0].emit('move');
  } else if (command === 'throw') setImmediate(() => {
    throw new Error('a bug in the main process');
  });
  else if (command === 'os-shutdown') powerMonitor.emit('shutdown', { preventDefault: () => report({ type: 'shutdown-delayed' }) });
});
