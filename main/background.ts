// Background mode: closing the window leaves the server running in the tray, so apps on this machine (or
// the LAN) keep their backend; "Quit" in the tray or menu stops it, with the checkpoint (main/shutdown.ts).

/** The tray exists on Windows and macOS; on Linux only when the desktop shows one (main/tray.ts reports it). */
export function defaultKeepRunning(platform: NodeJS.Platform, hasTray: boolean): boolean {
  return platform === 'darwin' || hasTray;
}

/**
 * Whether closing the window keeps the app running. Without a tray (a Linux desktop with none), a hidden
 * app could only be reached by launching it again, so it quits whatever the setting; macOS keeps its
 * dock icon either way.
 */
export function keepsRunning(setting: boolean | null, platform: NodeJS.Platform, hasTray: boolean): boolean {
  if (platform !== 'darwin' && !hasTray) return false;
  return setting ?? defaultKeepRunning(platform, hasTray);
}

/** The command-line flag the login item starts Deskbase with: the server starts, the window stays closed. */
export const HIDDEN_FLAG = '--hidden';

/** Opened at login with the window closed, when closing it would have kept the app running anyway. */
export function startsHidden(argv: readonly string[], openedAtLogin: boolean, keepRunning: boolean): boolean {
  return keepRunning && (openedAtLogin || argv.includes(HIDDEN_FLAG));
}
