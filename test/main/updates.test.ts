// Updates (main/updates.ts) and their place in the shutdown (main/shutdown.ts): the installer starts only
// after the server is closed (checkpoint taken, lock released), then the process exits. electron-updater
// is replaced by a double that behaves as its BaseUpdater does: install-on-quit hooks the app's 'quit'
// event (which app.exit emits, with its code) once an update is downloaded, and installs only for code 0.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createShutdown } from '../../main/shutdown.js';
import { configureChannel, createUpdates, type UpdaterLike } from '../../main/updates.js';

/** Electron's app as far as the updater is concerned: exit(code) emits 'quit' with the code. */
class FakeApp extends EventEmitter {
  constructor(private readonly events: string[]) {
    super();
  }
  exit(code: number) {
    this.emit('quit', {}, code);
    this.events.push(`exit:${code}`);
  }
}

/** The part of electron-updater's BaseUpdater that matters here, after its source. */
class FakeUpdater extends EventEmitter implements UpdaterLike {
  autoDownload = false;
  autoInstallOnAppQuit = false;
  allowPrerelease = false;
  allowDowngrade = false;
  logger: UpdaterLike['logger'] = null;
  checks = 0;
  checkFails: Error | null = null;
  /** What the feed offers: null is the current version. */
  offered: string | null = null;
  private installCalled = false;
  private _channel: string | null = null;
  constructor(private readonly app: FakeApp, private readonly events: string[]) {
    super();
  }
  get channel() {
    return this._channel;
  }
  set channel(value: string | null) {
    this._channel = value;
    this.allowDowngrade = true; // as electron-updater does
  }
  async checkForUpdates() {
    this.checks++;
    if (this.checkFails) throw this.checkFails;
    return { isUpdateAvailable: this.offered !== null, updateInfo: { version: this.offered ?? '1.0.0' } };
  }
  /** What electron-updater does when a download finishes. */
  downloaded(version: string) {
    this.emit('update-downloaded', { version });
    if (this.autoInstallOnAppQuit) {
      this.app.once('quit', (_event: unknown, exitCode: number) => {
        if (this.installCalled || exitCode !== 0) return;
        this.install(true, false);
      });
    }
  }
  install(isSilent: boolean, isForceRunAfter: boolean) {
    if (this.installCalled) return false;
    this.installCalled = true;
    this.events.push(`install:silent=${isSilent},runAfter=${isForceRunAfter}`);
    return true;
  }
  quitAndInstall(isSilent = false, isForceRunAfter = false) {
    this.install(isSilent, isForceRunAfter);
  }
}

function setup(options: { close?: () => Promise<void>; channel?: 'stable' | 'beta' } = {}) {
  const events: string[] = [];
  const app = new FakeApp(events);
  const updater = new FakeUpdater(app, events);
  const ready: string[] = [];
  const updates = createUpdates({ updater, channel: options.channel ?? 'stable', log: (l) => events.push(`log:${l}`), onReady: (v) => ready.push(v) });
  const shutdown = createShutdown({
    close: async () => {
      events.push('close:start');
      await (options.close?.() ?? Promise.resolve());
      events.push('close:done (checkpoint, lock released)');
    },
    beforeExit: (code) => updates.beforeExit(code),
    exit: (code) => app.exit(code),
    log: (l) => events.push(`log:${l}`),
    timeoutMs: 50,
  });
  const steps = () => events.filter((e) => !e.startsWith('log:'));
  return { events, steps, app, updater, updates, shutdown, ready };
}

describe('updates', () => {
  it('downloads in the background and installs on quit', () => {
    const { updater, updates } = setup();
    expect(updates.enabled).toBe(true);
    expect(updater.autoDownload).toBe(true);
    expect(updater.autoInstallOnAppQuit).toBe(true);
  });

  it.each([
    { channel: 'stable' as const, name: 'latest', prerelease: false },
    { channel: 'beta' as const, name: 'beta', prerelease: true },
  ])('the $channel channel reads $name.yml, prereleases=$prerelease, never downgrading', ({ channel, name, prerelease }) => {
    const { updater, updates } = setup({ channel: channel === 'beta' ? 'stable' : 'beta' });
    updates.setChannel(channel);
    expect(updater.channel).toBe(name);
    expect(updater.allowPrerelease).toBe(prerelease);
    expect(updater.allowDowngrade).toBe(false);
    configureChannel(updater, channel);
    expect(updater.allowDowngrade).toBe(false);
  });

  it('an update downloaded is installed on quit, after the server is closed, then the process exits', async () => {
    const { steps, updater, updates, shutdown, ready } = setup();
    updater.downloaded('1.4.0');
    expect(ready).toEqual(['1.4.0']);
    expect(updates.ready()).toBe('1.4.0');
    shutdown.onBeforeQuit();
    shutdown.onWillQuit({ preventDefault: () => undefined });
    await shutdown.stop();
    expect(steps()).toEqual(['close:start', 'close:done (checkpoint, lock released)', 'install:silent=true,runAfter=false', 'exit:0']);
  });

  it('"Restart to Update" installs silently and starts the new version, after the server is closed, once', async () => {
    const { steps, updater, updates, shutdown } = setup();
    updater.downloaded('1.4.0');
    expect(updates.requestInstall()).toBe(true);
    await shutdown.stop();
    expect(steps()).toEqual(['close:start', 'close:done (checkpoint, lock released)', 'install:silent=true,runAfter=true', 'exit:0']);
  });

  it('a shutdown that could not close the server cleanly (exit 1) leaves the update for the next quit', async () => {
    const { steps, updater, updates, shutdown } = setup({ close: () => new Promise<void>(() => undefined) });
    updater.downloaded('1.4.0');
    updates.requestInstall();
    await shutdown.stop();
    expect(steps()).toEqual(['close:start', 'exit:1']);
  });

  it('nothing downloaded: nothing installed, and Restart to Update does nothing', async () => {
    const { steps, updates, shutdown } = setup();
    expect(updates.requestInstall()).toBe(false);
    await shutdown.stop();
    expect(steps()).toEqual(['close:start', 'close:done (checkpoint, lock released)', 'exit:0']);
  });

  it('a check says whether an update is available', async () => {
    const { updater, updates } = setup();
    expect(await updates.check()).toEqual({ status: 'current' });
    updater.offered = '1.5.0';
    expect(await updates.check()).toEqual({ status: 'available', version: '1.5.0' });
  });

  it('a check that fails (offline) is logged and returned, never thrown; checks in flight are shared', async () => {
    const { events, updater, updates } = setup();
    updater.checkFails = new Error('net::ERR_INTERNET_DISCONNECTED');
    const outcomes = await Promise.all([updates.check(), updates.check()]);
    expect(outcomes).toEqual([
      { status: 'failed', reason: 'net::ERR_INTERNET_DISCONNECTED' },
      { status: 'failed', reason: 'net::ERR_INTERNET_DISCONNECTED' },
    ]);
    expect(updater.checks).toBe(1);
    expect(events).toContain('log:updater: could not check for updates: net::ERR_INTERNET_DISCONNECTED');
    // an 'error' event has a listener, so it cannot crash the app
    expect(() => updater.emit('error', new Error('bad signature'))).not.toThrow();
    expect(events).toContain('log:updater: bad signature');
  });

  it('start checks at once and on a timer; stop ends the timer', async () => {
    const { updater, updates } = setup();
    updates.start();
    updates.start();
    await Promise.resolve();
    expect(updater.checks).toBe(1);
    updates.stop();
  });

  it('off (a checkout, or no electron-updater): every call is a no-op', async () => {
    const updates = createUpdates({ updater: null, channel: 'stable', log: () => undefined });
    expect(updates.enabled).toBe(false);
    expect(await updates.check()).toEqual({ status: 'off' });
    expect(updates.requestInstall()).toBe(false);
    expect(() => updates.beforeExit(0)).not.toThrow();
    updates.start();
    updates.stop();
  });
});
