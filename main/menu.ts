// The desktop commands, offered twice: in the application menu and in the tray. Templates are plain
// data built from the state and the actions, so they are tested without Electron.
import type { MenuItemConstructorOptions } from 'electron';

export interface DesktopActions {
  openUi(): void;
  copyApiUrl(): void;
  openDataFolder(): void;
  openLogsFolder(): void;
  /** pb_hooks and pb_migrations beside the data folder (server-side logic), made when missing. */
  openHooksFolder(): void;
  openMigrationsFolder(): void;
  setLan(enabled: boolean): void;
  setKeepRunning(enabled: boolean): void;
  setOpenAtLogin(enabled: boolean): void;
  checkForUpdates(): void;
  /** Quits (with the checkpoint), installs the downloaded update and starts the new version. */
  installUpdate(): void;
  quit(): void;
}

export interface MenuState {
  lan: boolean;
  /** Closing the window keeps the server running; absent where there is no tray to come back from. */
  keepRunning?: boolean;
  openAtLogin?: boolean;
  /** The version downloaded and waiting to be installed, if any; absent when updates are off (unpackaged). */
  update?: { ready: string | null };
}

/** The commands themselves, shared by both menus. */
export function commandItems(state: MenuState, actions: DesktopActions): MenuItemConstructorOptions[] {
  return [
    { id: 'open-ui', label: 'Open Admin UI', click: () => actions.openUi() },
    { id: 'copy-api-url', label: 'Copy API URL', click: () => actions.copyApiUrl() },
    { id: 'open-data-folder', label: 'Open Data Folder', click: () => actions.openDataFolder() },
    { id: 'open-logs-folder', label: 'Open Logs Folder', click: () => actions.openLogsFolder() },
    { id: 'open-hooks-folder', label: 'Open Hooks Folder (pb_hooks)', click: () => actions.openHooksFolder() },
    { id: 'open-migrations-folder', label: 'Open Migrations Folder (pb_migrations)', click: () => actions.openMigrationsFolder() },
    { type: 'separator' },
    { id: 'lan', label: 'Share on the Local Network', type: 'checkbox', checked: state.lan, click: () => actions.setLan(!state.lan) },
    ...(state.keepRunning === undefined
      ? []
      : [{ id: 'keep-running', label: 'Keep Running When the Window Is Closed', type: 'checkbox', checked: state.keepRunning, click: () => actions.setKeepRunning(!state.keepRunning) } as const]),
    ...(state.openAtLogin === undefined
      ? []
      : [{ id: 'open-at-login', label: 'Open at Login', type: 'checkbox', checked: state.openAtLogin, click: () => actions.setOpenAtLogin(!state.openAtLogin) } as const]),
    ...updateItems(state, actions),
    { type: 'separator' },
    { id: 'quit', label: 'Quit Deskbase', click: () => actions.quit() },
  ];
}

function updateItems(state: MenuState, actions: DesktopActions): MenuItemConstructorOptions[] {
  if (!state.update) return [];
  const ready = state.update.ready;
  return [
    { type: 'separator' },
    ready
      ? { id: 'install-update', label: `Restart to Update to ${ready}`, click: () => actions.installUpdate() }
      : { id: 'check-updates', label: 'Check for Updates', click: () => actions.checkForUpdates() },
  ];
}

export function trayTemplate(state: MenuState, actions: DesktopActions): MenuItemConstructorOptions[] {
  return commandItems(state, actions);
}

/** macOS puts the app's name first; elsewhere the commands form a "Deskbase" menu. Edit keeps copy/paste shortcuts. */
export function appMenuTemplate(state: MenuState, actions: DesktopActions, platform: NodeJS.Platform): MenuItemConstructorOptions[] {
  const commands: MenuItemConstructorOptions = { label: 'Deskbase', submenu: commandItems(state, actions) };
  const standard: MenuItemConstructorOptions[] = [{ role: 'editMenu' }, { role: 'viewMenu' }, { role: 'windowMenu' }];
  if (platform === 'darwin') {
    const appMenu: MenuItemConstructorOptions = {
      role: 'appMenu',
      submenu: [{ role: 'about' }, { type: 'separator' }, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' }, { role: 'quit' }],
    };
    return [appMenu, commands, ...standard];
  }
  return [commands, ...standard];
}
