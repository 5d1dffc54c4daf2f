// pb_hooks folders for the hook suites: files written as PocketBase's docs show them, in a temp folder.
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A temp pb_hooks folder holding `files` (name → source; names may hold subfolders). */
export function hooksFolder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb_hooks-'));
  for (const [name, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), source);
  }
  return dir;
}
