// Where the desktop app keeps things. userData also holds Chromium's own files (caches, local storage),
// so the database lives in a `data` subfolder of its own, and the settings beside it.
import { isAbsolute, join, resolve } from 'node:path';

export const PRODUCT_NAME = 'Deskbase';

export interface DesktopPaths {
  /** Electron's userData folder, e.g. ~/.config/Deskbase, %APPDATA%\Deskbase, ~/Library/Application Support/Deskbase. */
  userData: string;
  /** The server's data folder: the snapshot and the journal. */
  dataDir: string;
  /** Desktop-only settings (LAN sharing...). */
  settingsFile: string;
}

/**
 * One userData folder named after the product, whether the app runs packaged (where Electron would use
 * productName) or from a checkout (where it would use package.json's lowercase name).
 */
export function userDataDir(appData: string): string {
  return join(appData, PRODUCT_NAME);
}

/** `override` (DESKBASE_DATA_DIR, read at the edge) moves the database elsewhere, e.g. to a synced drive. */
export function desktopPaths(userData: string, override?: string | null): DesktopPaths {
  const dataDir = override && override.trim() !== '' ? (isAbsolute(override) ? override : resolve(override)) : join(userData, 'data');
  return { userData, dataDir, settingsFile: join(userData, 'settings.json') };
}
