// What the desktop commands do, with Electron's pieces passed in: the IPC handlers (for the window) and
// the menu actions (for the app menu and the tray) both come from here.
import type { RunningServer } from '../server/index.js';
import type { DesktopHandlers } from './ipc.js';
import type { LanSwitch } from './lan.js';
import type { DesktopActions } from './menu.js';
import type { Preferences } from './preferences.js';
import type { CheckOutcome, Updates } from './updates.js';

export interface ActionDeps {
  server: Pick<RunningServer, 'url' | 'lanUrls'>;
  lan: LanSwitch;
  dataDir: string;
  /** app.getPath('logs'), where main.log is (main/log-file.ts). */
  logsDir: string;
  /** pb_hooks and pb_migrations beside the data folder (server/index.ts hooksDirOf, migrationsDirOf). */
  hooksDir: string;
  migrationsDir: string;
  /** Makes a folder (and its parents) if missing: fs.mkdir with recursive; true when it made it. */
  ensureFolder(path: string): Promise<boolean>;
  writeClipboard(text: string): void;
  /** shell.openPath: resolves to an error message, or "" on success. */
  openPath(path: string): Promise<string>;
  openUi(): void;
  quit(): void;
  /** Shows a failure of a menu command (IPC failures go back to the caller instead). */
  reportError(title: string, err: unknown): void;
  /** Shows the answer of a menu command that has nothing else to show (Check for Updates). */
  reportInfo?(title: string, message: string): void;
  /** Called when a menu-driven LAN change failed, so the checkbox shows the real state again. */
  onLanUnchanged(): void;
  /** Background mode, open at login, theme... (main/preferences.ts). */
  preferences?: Pick<Preferences, 'get' | 'set'>;
  updates?: Pick<Updates, 'check' | 'requestInstall'>;
  /** Called when a menu-driven preference change failed, so the checkboxes show the real state again. */
  onPreferencesUnchanged?(): void;
  /** app.relaunch() then quit: the new process starts once this one has checkpointed and exited. */
  restart?(): void;
}

/** While sharing, the address other devices reach; otherwise the local one. */
export async function apiUrl(server: Pick<RunningServer, 'url' | 'lanUrls'>): Promise<string> {
  const [lanUrl] = await server.lanUrls();
  return `${lanUrl ?? server.url}/api/`;
}

async function openFolder(deps: ActionDeps, folder: string): Promise<void> {
  const error = await deps.openPath(folder);
  if (error) throw new Error(`Could not open ${folder}: ${error}`);
}

export function createHandlers(deps: ActionDeps): DesktopHandlers {
  return {
    lanGet: () => deps.lan.get(),
    lanSet: (enabled) => deps.lan.set(enabled),
    async copyApiUrl() {
      const url = await apiUrl(deps.server);
      deps.writeClipboard(url);
      return url;
    },
    openDataFolder: () => openFolder(deps, deps.dataDir),
    preferencesGet: async () => {
      if (!deps.preferences) throw new Error('Preferences are not available.');
      return deps.preferences.get();
    },
    preferencesSet: async (patch) => {
      if (!deps.preferences) throw new Error('Preferences are not available.');
      return deps.preferences.set(patch);
    },
    restart: async () => {
      if (!deps.restart) throw new Error('Restarting is not available.');
      deps.restart();
    },
  };
}

export const HOOKS_FOLDER_MADE =
  'Put your *.pb.js hook files in this folder (PocketBase\'s pb_hooks). Deskbase starts reading it at its next start; from then on it reloads the hooks whenever a file changes.';
export const MIGRATIONS_FOLDER_MADE =
  'Put your JS migrations in this folder (PocketBase\'s pb_migrations). Deskbase applies new ones each time it starts, in file-name order, each once.';

/** What "Check for Updates" says. */
export function checkMessage(outcome: CheckOutcome): string {
  switch (outcome.status) {
    case 'available':
      return `Deskbase ${outcome.version} is being downloaded. It is installed when Deskbase quits, or now with "Restart to Update" once it is ready.`;
    case 'current':
      return 'Deskbase is up to date.';
    case 'off':
      return 'Updates are off in this build (run from a checkout, or without the updater).';
    case 'failed':
      return `Could not check for updates: ${outcome.reason}`;
  }
}

export function createMenuActions(deps: ActionDeps, handlers: DesktopHandlers): DesktopActions {
  const run = (title: string, task: () => Promise<unknown>, onFail?: () => void) => {
    task().catch((err: unknown) => {
      onFail?.();
      deps.reportError(title, err);
    });
  };
  return {
    openUi: () => deps.openUi(),
    copyApiUrl: () => run('Could not copy the API URL', handlers.copyApiUrl),
    openDataFolder: () => run('Could not open the data folder', handlers.openDataFolder),
    openLogsFolder: () => run('Could not open the logs folder', () => openFolder(deps, deps.logsDir)),
    // made first when missing: a new user's first hook or migration goes into an empty folder. The
    // server reads pb_hooks only when it existed at start (an empty runtime would cost every start a
    // worker thread), so a folder made now says when its files take effect.
    openHooksFolder: () => run('Could not open the hooks folder', async () => {
      const made = await deps.ensureFolder(deps.hooksDir);
      await openFolder(deps, deps.hooksDir);
      if (made) deps.reportInfo?.('Hooks folder created', HOOKS_FOLDER_MADE);
    }),
    openMigrationsFolder: () => run('Could not open the migrations folder', async () => {
      const made = await deps.ensureFolder(deps.migrationsDir);
      await openFolder(deps, deps.migrationsDir);
      if (made) deps.reportInfo?.('Migrations folder created', MIGRATIONS_FOLDER_MADE);
    }),
    setLan: (enabled) => run('LAN sharing', () => handlers.lanSet(enabled), deps.onLanUnchanged),
    setKeepRunning: (enabled) => run('Background mode', () => handlers.preferencesSet({ keepRunning: enabled }), deps.onPreferencesUnchanged),
    setOpenAtLogin: (enabled) => run('Open at login', () => handlers.preferencesSet({ openAtLogin: enabled }), deps.onPreferencesUnchanged),
    checkForUpdates: () =>
      run('Could not check for updates', async () => {
        const outcome = await deps.updates?.check();
        if (outcome) deps.reportInfo?.('Updates', checkMessage(outcome));
      }),
    installUpdate: () => {
      // Nothing ready (the menu was stale): nothing happens, rather than quitting for no update.
      if (deps.updates?.requestInstall()) deps.quit();
    },
    quit: () => deps.quit(),
  };
}
