// Desktop settings in a small JSON file, written atomically (temporary file, fsync, rename, folder sync: `server/durable-files.ts`) so a crash
// or a logout mid-write leaves the old file or the new one, never half of one.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { replaceDurably } from '../server/durable-files.js';

export interface DesktopSettings {
  /** LAN sharing: off by default, the server then listens on 127.0.0.1 only. */
  lan: boolean;
}

export const DEFAULT_SETTINGS: DesktopSettings = { lan: false };

/** Unknown keys and wrong types fall back to the defaults: a hand-edited file never stops the app. */
export function parseSettings(text: string): DesktopSettings {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
  const obj = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  return { lan: typeof obj.lan === 'boolean' ? obj.lan : DEFAULT_SETTINGS.lan };
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
