// The desktop commands, offered twice: in the application menu and in the tray. Templates are plain
// data built from the state and the actions, so they are tested without Electron.
import type { MenuItemConstructorOptions } from 'electron';

export interface DesktopActions {
  openUi(): void;
  copyApiUrl(): void;
  openDataFolder(): void;
  setLan(enabled: boolean): void;
  quit(): void;
}

export interface MenuState {
  lan: boolean;
}

/** The commands themselves, shared by both menus. */
export function commandItems(state: MenuState, actions: DesktopActions): MenuItemConstructorOptions[] {
  return [
    { id: 'open-ui', label: 'Open Admin UI', click: () => actions.openUi() },
    { id: 'copy-api-url', label: 'Copy API URL', click: () => actions.copyApiUrl() },
    { id: 'open-data-folder', label: 'Open Data Folder', click: () => actions.openDataFolder() },
    { type: 'separator' },
    { id: 'lan', label: 'Share on the Local Network', type: 'checkbox', checked: state.lan, click: () => actions.setLan(!state.lan) },
    { type: 'separator' },
    { id: 'quit', label: 'Quit Deskbase', click: () => actions.quit() },
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
