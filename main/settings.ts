// Desktop settings in a small JSON file, written atomically (temporary file, fsync, rename, folder sync: `server/durable-files.ts`) so a crash
// or a logout mid-write leaves the old file or the new one, never half of one.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { replaceDurably } from '../server/durable-files.js';

import type { ThemeSource, UpdateChannel } from './preload-api.js';

export type { ThemeSource, UpdateChannel };

export interface WindowBounds {
  x: number;
  y: number;
  width: number;
  height: number;
  maximized: boolean;
}

export interface DesktopSettings {
  /** LAN sharing: off by default, the server then listens on 127.0.0.1 only. */
  lan: boolean;
  /** The port the server asks for first (the admin UI's sign-in is per origin, so it should not move). */
  port: number;
  /** Closing the window keeps the server running in the tray; null: the platform's default (main/background.ts). */
  keepRunning: boolean | null;
  /** Start Deskbase when the user logs in (main/login-item.ts). */
  openAtLogin: boolean;
  /** The window's and the admin UI's colours: follow the OS, or always light or dark. */
  theme: ThemeSource;
  /** Which releases the updater offers (main/updates.ts). */
  updateChannel: UpdateChannel;
  /** Where the window was, restored on the next start (main/window-state.ts); null: the default size. */
  window: WindowBounds | null;
  /** Serve HTTPS with Deskbase's own certificate (server/http/certificate.ts), for LAN browsers. */
  https: boolean;
}

export const DEFAULT_PORT = 8090;

export const DEFAULT_SETTINGS: DesktopSettings = {
  lan: false, port: DEFAULT_PORT, keepRunning: null, openAtLogin: false, theme: 'system', updateChannel: 'stable', window: null, https: false,
};

const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

function parseBounds(v: unknown): WindowBounds | null {
  if (typeof v !== 'object' || v === null) return null;
  const b = v as Record<string, unknown>;
  const LIMIT = 100_000;
  if (!isInt(b.x, -LIMIT, LIMIT) || !isInt(b.y, -LIMIT, LIMIT) || !isInt(b.width, 1, LIMIT) || !isInt(b.height, 1, LIMIT)) return null;
  return { x: b.x, y: b.y, width: b.width, height: b.height, maximized: b.maximized === true };
}

/** Unknown keys and wrong types fall back to the defaults: a hand-edited file never stops the app. */
export function parseSettings(text: string): DesktopSettings {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
  const obj = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const d = DEFAULT_SETTINGS;
  return {
    lan: typeof obj.lan === 'boolean' ? obj.lan : d.lan,
    // 0 would let the OS choose a new port each start: not a setting, so 1024-65535 only.
    port: isInt(obj.port, 1024, 65535) ? obj.port : d.port,
    keepRunning: typeof obj.keepRunning === 'boolean' ? obj.keepRunning : d.keepRunning,
    openAtLogin: typeof obj.openAtLogin === 'boolean' ? obj.openAtLogin : d.openAtLogin,
    theme: obj.theme === 'light' || obj.theme === 'dark' || obj.theme === 'system' ? obj.theme : d.theme,
    updateChannel: obj.updateChannel === 'beta' || obj.updateChannel === 'stable' ? obj.updateChannel : d.updateChannel,
    window: parseBounds(obj.window),
    https: typeof obj.https === 'boolean' ? obj.https : d.https,
  };
}

export async function loadSettings(file: string): Promise<DesktopSettings> {
  try {
    return parseSettings(await readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ...DEFAULT_SETTINGS };
    throw err;
  }
}

export async function saveSettings(file: string, settings: DesktopSettings): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await replaceDurably(file, JSON.stringify(settings, null, 2) + '\n', `${file}.${process.pid}.tmp`);
}

export interface SettingsStore {
  get(): DesktopSettings;
  /** Applies `patch` to the current settings and saves; updates from anywhere are written one after another. */
  update(patch: Partial<DesktopSettings>): Promise<DesktopSettings>;
}

/** The one holder of the settings while the app runs: LAN, tray, login, theme and window state all patch it. */
export function createSettingsStore(file: string, initial: DesktopSettings, save = saveSettings): SettingsStore {
  let current = { ...initial };
  let queue: Promise<unknown> = Promise.resolve();
  return {
    get: () => current,
    update(patch) {
      current = { ...current, ...patch };
      const snapshot = current;
      const next = queue.then(() => save(file, snapshot)).then(() => snapshot);
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
