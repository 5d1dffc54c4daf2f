// Electron glue for the application menu and the tray icon; what they contain is in menu.ts.
import { Menu, nativeImage, Tray } from 'electron';
import { appMenuTemplate, trayTemplate, type DesktopActions, type MenuState } from './menu.js';
import { errorText } from './error-text.js';

export interface DesktopMenus {
  /** False where the desktop has no tray (some Linux desktops): background mode is then off (main/background.ts). */
  readonly hasTray: boolean;
  /** Rebuilds both menus, e.g. after LAN sharing changed. */
  refresh(state: MenuState): void;
  destroy(): void;
}

export interface TrayIcons {
  /** The app's icon (dist/main/icon.png). */
  icon: string;
  /** macOS: a black-and-alpha template image (dist/main/trayTemplate.png, @2x beside it) the menu bar tints. */
  template: string;
}

/** Tray icons are drawn small: 16 px on Windows, 22 px on Linux panels; macOS gets its template image. */
function trayIcon(icons: TrayIcons, platform: NodeJS.Platform) {
  if (platform === 'darwin') {
    const image = nativeImage.createFromPath(icons.template);
    image.setTemplateImage(true);
    return image;
  }
  const size = platform === 'linux' ? 22 : 16;
  return nativeImage.createFromPath(icons.icon).resize({ width: size, height: size });
}

export function installMenus(actions: DesktopActions, state: MenuState, icons: TrayIcons, platform: NodeJS.Platform): DesktopMenus {
  let tray: Tray | null = null;
  try {
    tray = new Tray(trayIcon(icons, platform));
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
    hasTray: tray !== null,
    refresh,
    destroy: () => tray?.destroy(),
  };
}
