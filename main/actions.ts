// What the desktop commands do, with Electron's pieces passed in: the IPC handlers (for the window) and
// the menu actions (for the app menu and the tray) both come from here.
import type { RunningServer } from '../server/index.js';
import type { DesktopHandlers } from './ipc.js';
import type { LanSwitch } from './lan.js';
import type { DesktopActions } from './menu.js';

export interface ActionDeps {
  server: Pick<RunningServer, 'url' | 'lanUrls'>;
  lan: LanSwitch;
  dataDir: string;
  writeClipboard(text: string): void;
  /** shell.openPath: resolves to an error message, or "" on success. */
  openPath(path: string): Promise<string>;
  openUi(): void;
  quit(): void;
  /** Shows a failure of a menu command (IPC failures go back to the caller instead). */
  reportError(title: string, err: unknown): void;
  /** Called when a menu-driven LAN change failed, so the checkbox shows the real state again. */
  onLanUnchanged(): void;
}

/** While sharing, the address other devices reach; otherwise the local one. */
export async function apiUrl(server: Pick<RunningServer, 'url' | 'lanUrls'>): Promise<string> {
  const [lanUrl] = await server.lanUrls();
  return `${lanUrl ?? server.url}/api/`;
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
    async openDataFolder() {
      const error = await deps.openPath(deps.dataDir);
      if (error) throw new Error(`Could not open ${deps.dataDir}: ${error}`);
    },
  };
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
    setLan: (enabled) => run('LAN sharing', () => handlers.lanSet(enabled), deps.onLanUnchanged),
    quit: () => deps.quit(),
  };
}
