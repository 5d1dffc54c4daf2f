// "Open at Login": the OS's login items on macOS and Windows (app.setLoginItemSettings), a .desktop
// autostart entry on Linux (the XDG autostart folder, ~/.config/autostart), which Electron does not do.
// Started at login, Deskbase opens with its window closed (main/background.ts, HIDDEN_FLAG).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { HIDDEN_FLAG } from './background.js';

export interface LoginItemSettings {
  openAtLogin: boolean;
  /** Windows: the arguments the login item starts the app with. */
  args?: string[];
}

export interface LoginItemDeps {
  platform: NodeJS.Platform;
  /** app.setLoginItemSettings (macOS, Windows). */
  setLoginItemSettings(settings: LoginItemSettings): void;
  /** Linux: the autostart folder (autostartDir(process.env)). */
  autostartDir: string;
  /**
   * What the login item starts: the AppImage file when run from one ($APPIMAGE), else the executable,
   * followed by the app's folder when run from a checkout (Electron needs to be told which app).
   */
  command: string[];
}

export const AUTOSTART_FILE = 'deskbase.desktop';

/** $XDG_CONFIG_HOME/autostart, or ~/.config/autostart. */
export function autostartDir(env: NodeJS.ProcessEnv, home = homedir()): string {
  const config = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(config, 'autostart');
}

/** One argument of an Exec= line, quoted as the Desktop Entry Specification asks. */
export function execArgument(arg: string): string {
  const escaped = arg.replace(/[\\"`$]/g, (c) => `\\${c}`).replace(/%/g, '%%');
  return /[\s"'\\><~|&;$*?#()`%]/.test(arg) ? `"${escaped}"` : escaped;
}

export function autostartEntry(command: string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Deskbase',
    'Comment=A local-first backend in a desktop app',
    `Exec=${[...command, HIDDEN_FLAG].map(execArgument).join(' ')}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

export async function applyOpenAtLogin(enabled: boolean, deps: LoginItemDeps): Promise<void> {
  if (deps.platform === 'linux') {
    const file = join(deps.autostartDir, AUTOSTART_FILE);
    if (enabled) {
      await mkdir(deps.autostartDir, { recursive: true });
      await writeFile(file, autostartEntry(deps.command));
    } else {
      await rm(file, { force: true });
    }
    return;
  }
  // Windows starts the executable (its path is Electron's default) with these arguments; macOS starts the app bundle.
  const args = [...deps.command.slice(1), HIDDEN_FLAG];
  deps.setLoginItemSettings(deps.platform === 'win32' ? { openAtLogin: enabled, args } : { openAtLogin: enabled });
}
