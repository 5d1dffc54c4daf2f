// A stand-in for the `electron` module, so the built main process (dist/main/index.cjs) can run under
// plain Node in test/main/build.test.ts: `node --require test/main/fake-electron.cjs dist/main/index.cjs`.
// It reports what the app does as JSON lines starting with "FAKE " on stdout, and takes commands on
// stdin: `invoke <channel> <senderUrl> <json args>`, `second-instance`, `close-window`, `quit`, `os-shutdown`.
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

class App extends EventEmitter {
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
    return Promise.resolve();
  }
  quit() {
    const event = { prevented: false, preventDefault() { this.prevented = true; } };
    this.emit('before-quit', event);
    report({ type: 'quit', prevented: event.prevented });
    if (!event.prevented) process.exit(0);
  }
  exit(code) {
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
  }
  setWindowOpenHandler() {}
  send(channel, payload) {
    report({ type: 'send', channel, payload });
  }
}

class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    this.webContents = new WebContents();
    this.destroyed = false;
    windows.push(this);
    report({ type: 'window', webPreferences: options.webPreferences, iconExists: existsSync(options.icon) });
  }
  loadURL(url) {
    report({ type: 'load', url });
    return Promise.resolve();
  }
  isDestroyed() { return this.destroyed; }
  isMinimized() { return false; }
  restore() {}
  show() { report({ type: 'show' }); }
  focus() { report({ type: 'focus' }); }
  close() {
    this.destroyed = true;
    this.emit('closed');
    windows.splice(windows.indexOf(this), 1);
    if (windows.length === 0) app.emit('window-all-closed');
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
  setContextMenu(menu) { report({ type: 'tray-menu', ids: menu.filter((i) => i.id).map((i) => i.id) }); }
  destroy() {}
}

const Menu = {
  buildFromTemplate: (template) => template,
  setApplicationMenu: (template) => report({ type: 'app-menu', labels: template.map((m) => m.label ?? m.role) }),
};
const powerMonitor = new EventEmitter();

module.exports = {
  app, BrowserWindow, ipcMain, Menu, Tray, powerMonitor,
  nativeImage: { createFromPath: (p) => ({ resize: () => ({ path: p }) }) },
  clipboard: { writeText: (text) => report({ type: 'clipboard', text }) },
  shell: { openPath: async (p) => (report({ type: 'openPath', path: p }), ''), openExternal: async () => undefined },
  dialog: { showErrorBox: (title, text) => report({ type: 'error', title, text }) },
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
  else if (command === 'os-shutdown') powerMonitor.emit('shutdown', { preventDefault: () => report({ type: 'shutdown-delayed' }) });
});
