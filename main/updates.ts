// Updates with electron-updater: checked at start and every few hours, downloaded in the background,
// installed when Deskbase quits, or at once with "Restart to Update". The channel ("stable" or "beta")
// comes from the settings. Installing is always the last thing Deskbase does: main/shutdown.ts closes
// the server (checkpoint, the data folder's lock released) and only then calls beforeExit, then exits.
//
// Quitting ends in app.exit(0), which skips 'before-quit' and 'will-quit' but still emits 'quit' with
// the exit code: that is where electron-updater's own install-on-quit runs (BaseUpdater.addQuitHandler,
// only for exit code 0), so an update downloaded earlier is installed after our shutdown as well.
import { errorText } from './error-text.js';
import type { UpdateChannel } from './preload-api.js';

/** The part of electron-updater's AppUpdater (its `autoUpdater`) that Deskbase uses. */
export interface UpdaterLike {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  allowPrerelease: boolean;
  allowDowngrade: boolean;
  channel: string | null;
  logger: { info(message?: unknown): void; warn(message?: unknown): void; error(message?: unknown): void } | null;
  on(event: 'update-downloaded', listener: (info: { version: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** null when updates are off for this build (electron-updater's own "not packed" check). */
  checkForUpdates(): Promise<{ isUpdateAvailable?: boolean; updateInfo: { version: string } } | null>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
}

export interface UpdatesDeps {
  /** null when updates are off: not packaged (a checkout), or electron-updater missing from the build. */
  updater: UpdaterLike | null;
  channel: UpdateChannel;
  log(line: string): void;
  /** An update was downloaded and waits to be installed (refresh the menus). */
  onReady?(version: string): void;
  /** How often to look again while the app runs. */
  intervalMs?: number;
}

/** What a check found: told to the user when they asked from the menu. */
export type CheckOutcome =
  | { status: 'available'; version: string }
  | { status: 'current' }
  | { status: 'off' }
  | { status: 'failed'; reason: string };

export interface Updates {
  readonly enabled: boolean;
  /** The version downloaded and waiting, or null. */
  ready(): string | null;
  /** Looks for an update now (at start, on a timer, from the menu). Failures (offline...) are logged and returned, never thrown. */
  check(): Promise<CheckOutcome>;
  setChannel(channel: UpdateChannel): void;
  /** "Restart to Update": true when an update is ready; the caller then quits as usual. */
  requestInstall(): boolean;
  /** main/shutdown.ts's beforeExit: runs the installer after the server is closed, before exit(code). */
  beforeExit(code: number): void;
  start(): void;
  stop(): void;
}

export const UPDATE_INTERVAL_MS = 6 * 60 * 60 * 1000;

/**
 * electron-updater's channel names: "latest" (latest.yml...) for stable, "beta" for beta; with
 * generateUpdatesFilesForAllChannels, a beta user also gets stable releases newer than their beta.
 */
export function configureChannel(updater: UpdaterLike, channel: UpdateChannel): void {
  updater.channel = channel === 'beta' ? 'beta' : 'latest';
  // GitHub releases: a beta is a prerelease.
  updater.allowPrerelease = channel === 'beta';
  // Setting `channel` turns on downgrades in electron-updater: leaving the beta channel keeps the beta
  // until a newer stable release, never installs an older version.
  updater.allowDowngrade = false;
}

export function createUpdates(deps: UpdatesDeps): Updates {
  const updater = deps.updater;
  let ready: string | null = null;
  let restart = false;
  let timer: NodeJS.Timeout | null = null;
  let checking: Promise<CheckOutcome> | null = null;

  if (updater) {
    updater.autoDownload = true;
    updater.autoInstallOnAppQuit = true;
    configureChannel(updater, deps.channel);
    updater.logger = {
      info: (m) => deps.log(`updater: ${String(m)}`),
      warn: (m) => deps.log(`updater: ${String(m)}`),
      error: (m) => deps.log(`updater: ${String(m)}`),
    };
    updater.on('update-downloaded', (info) => {
      ready = info.version;
      deps.log(`Deskbase ${info.version} is downloaded; it is installed when Deskbase quits.`);
      deps.onReady?.(info.version);
    });
    // Without a listener an 'error' event would throw; a failed check must never disturb the app.
    updater.on('error', (error) => deps.log(`updater: ${errorText(error)}`));
  }

  const check = (): Promise<CheckOutcome> => {
    if (!updater) return Promise.resolve({ status: 'off' });
    checking ??= updater
      .checkForUpdates()
      .then((result): CheckOutcome => {
        if (!result) return { status: 'off' };
        return result.isUpdateAvailable === false ? { status: 'current' } : { status: 'available', version: result.updateInfo.version };
      })
      .catch((err: unknown): CheckOutcome => {
        deps.log(`updater: could not check for updates: ${errorText(err)}`);
        return { status: 'failed', reason: errorText(err) };
      })
      .finally(() => {
        checking = null;
      });
    return checking;
  };

  return {
    enabled: updater !== null,
    ready: () => ready,
    check,
    setChannel(channel) {
      if (updater) configureChannel(updater, channel);
    },
    requestInstall() {
      if (!updater || ready === null) return false;
      restart = true;
      return true;
    },
    beforeExit(code) {
      // A quit that failed to close the server cleanly (code 1) leaves the update for the next quit.
      if (!updater || ready === null || code !== 0) return;
      if (restart) {
        deps.log(`Installing Deskbase ${ready} and restarting.`);
        // Silent, then start the new version. It sets electron-updater's quitAndInstallCalled, so its own
        // quit handler does not install a second time.
        updater.quitAndInstall(true, true);
      }
      // Otherwise electron-updater's quit handler installs it silently on the 'quit' that exit(0) emits.
    },
    start() {
      if (!updater || timer) return;
      void check();
      timer = setInterval(() => void check(), deps.intervalMs ?? UPDATE_INTERVAL_MS);
      timer.unref?.();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
