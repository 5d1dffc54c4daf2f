// What goes to the log file (main/log-file.ts): everything the main process writes to the console (the
// server's lines, ours), every uncaught exception and unhandled rejection with its stack, and where
// Chromium's crash reports stay (on this machine: nothing is uploaded).
import { format } from 'node:util';
import type { LogFile, LogLevel } from './log-file.js';

type ConsoleMethod = 'log' | 'info' | 'warn' | 'error';
export type ConsoleLike = Record<ConsoleMethod, (...args: unknown[]) => void>;

export interface ProcessEvents {
  on(event: 'uncaughtException', listener: (error: Error, origin: string) => void): unknown;
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
}

export interface LoggingDeps {
  file: LogFile;
  console: ConsoleLike;
  process: ProcessEvents;
  /**
   * Told of an uncaught exception once it is logged (the desktop shows a dialog naming the log). With a
   * listener, Node no longer exits on one: like Electron's own default, the app keeps running, and the
   * database is safe either way (every acknowledged write is in the fsynced journal).
   */
  onUncaught?(error: Error): void;
}

const LEVEL: Record<ConsoleMethod, LogLevel> = { log: 'info', info: 'info', warn: 'warn', error: 'error' };

/** Tees the console into the file and logs what would otherwise vanish; returns a function undoing the tee. */
export function installLogging(deps: LoggingDeps): () => void {
  const originals = {} as ConsoleLike;
  for (const method of Object.keys(LEVEL) as ConsoleMethod[]) {
    const original = deps.console[method];
    originals[method] = original;
    deps.console[method] = (...args: unknown[]) => {
      original.apply(deps.console, args);
      deps.file.write(LEVEL[method], format(...args));
    };
  }
  deps.process.on('uncaughtException', (error, origin) => {
    deps.file.write('error', `Uncaught exception (${origin}): ${error?.stack ?? String(error)}`);
    deps.onUncaught?.(error);
  });
  deps.process.on('unhandledRejection', (reason) => {
    deps.file.write('error', `Unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : format(reason)}`);
  });
  return () => Object.assign(deps.console, originals);
}

/**
 * crashReporter.start's options: minidumps of crashed processes (main, renderer, GPU) are written to
 * app.getPath('crashDumps') and never uploaded; a user can attach them to a bug report.
 */
export const CRASH_REPORTER_OPTIONS = { uploadToServer: false, compress: true } as const;
