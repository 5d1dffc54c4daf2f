// The desktop app's log: one text file in the OS's logs folder (app.getPath('logs')), rotated by size so
// it never grows without bound: main.log, then main.1.log (older) ... main.<keep>.log (oldest, dropped
// next). Writes are synchronous appends of one line: a line written just before a crash is on disk, and
// lines from the server and the main process interleave in the order they happened.
import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errorText } from './error-text.js';

export const LOG_FILE_NAME = 'main.log';
/** 2 MiB per file, 3 older files kept: at most 8 MiB of logs. */
export const LOG_MAX_BYTES = 2 * 1024 * 1024;
export const LOG_KEEP = 3;

export type LogLevel = 'info' | 'warn' | 'error';

export interface LogFileOptions {
  dir: string;
  maxBytes?: number;
  keep?: number;
  now?: () => Date;
  /** Where a failure to write the file is told (once): a full disk must never stop the app. */
  onFailure?: (message: string) => void;
}

export interface LogFile {
  /** The folder "Open Logs Folder" opens. */
  readonly dir: string;
  /** The current file. */
  readonly path: string;
  write(level: LogLevel, text: string): void;
}

/** The name of the n-th older file: main.log → main.1.log. */
export function rotatedName(n: number): string {
  return n === 0 ? LOG_FILE_NAME : LOG_FILE_NAME.replace(/\.log$/, `.${n}.log`);
}

export function openLogFile(options: LogFileOptions): LogFile {
  const maxBytes = options.maxBytes ?? LOG_MAX_BYTES;
  const keep = options.keep ?? LOG_KEEP;
  const now = options.now ?? (() => new Date());
  const path = join(options.dir, LOG_FILE_NAME);
  let size: number | null = null;
  let failed = false;

  const currentSize = () => {
    if (size === null) {
      try {
        size = statSync(path).size;
      } catch {
        size = 0;
      }
    }
    return size;
  };

  const rotate = () => {
    rmSync(join(options.dir, rotatedName(keep)), { force: true });
    for (let n = keep - 1; n >= 0; n--) {
      try {
        renameSync(join(options.dir, rotatedName(n)), join(options.dir, rotatedName(n + 1)));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    size = 0;
  };

  return {
    dir: options.dir,
    path,
    write(level, text) {
      // Every line of a multi-line message (a stack) carries the time and level, so grep finds them all.
      const stamp = `${now().toISOString()} ${level.padEnd(5)} `;
      const line = text.split(/\r?\n/).map((part) => stamp + part).join('\n') + '\n';
      const bytes = Buffer.byteLength(line);
      try {
        mkdirSync(options.dir, { recursive: true });
        if (currentSize() > 0 && currentSize() + bytes > maxBytes) rotate();
        appendFileSync(path, line);
        size = currentSize() + bytes;
        failed = false;
      } catch (err) {
        size = null;
        if (!failed) options.onFailure?.(`Deskbase: could not write the log file ${path}: ${errorText(err)}`);
        failed = true;
      }
    },
  };
}
