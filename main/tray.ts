// Electron glue for the application menu and the tray icon; what they contain is in menu.ts.
import { Menu, nativeImage, Tray } from 'electron';
import { appMenuTemplate, trayTemplate, type DesktopActions, type MenuState } from './menu.js';
import { errorText } from './error-text.js';

export interface DesktopMenus {
  /** Rebuilds both menus, e.g. after LAN sharing changed. */
  refresh(state: MenuState): void;
  destroy(): void;
}

/** Tray icons are drawn small: 16 px on Windows and macOS, 22 px on Linux panels. */
function trayIcon(iconPath: string, platform: NodeJS.Platform) {
  const size = platform === 'linux' ? 22 : 16;
  return nativeImage.createFromPath(iconPath).resize({ width: size, height: size });
}

export function installMenus(actions: DesktopActions, state: MenuState, iconPath: string, platform: NodeJS.Platform): DesktopMenus {
  let tray: Tray | null = null;
  try {
    tray = new Tray(trayIcon(iconPath, platform));
    tray.setToolTip('Deskbase');
    // Windows and most Linux panels: a click on the icon opens the window; the menu is on right-click.
    tray.on('click', () => actions.openUi());
  } catch (err) {
    // Some Linux desktops have no tray; the application menu offers the same commands.
    console.error(`Deskbase: no tray icon (${errorText(err)}).`);
  }
  const refresh = (next: MenuState) => {
    Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(next, actions, platform)));
    tray?.setContextMenu(Menu.buildFromTemplate(trayTemplate(next, actions)));
  };
  refresh(state);
  return {
    refresh,
    destroy: () => tray?.destroy(),
  };
}
