// The desktop app's log (main/log-file.ts, main/logging.ts): a real file in a temporary folder, rotated by
// size; the console teed into it; uncaught exceptions and unhandled rejections logged with their stack.
import { EventEmitter } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOG_FILE_NAME, openLogFile, rotatedName } from '../../main/log-file.js';
import { CRASH_REPORTER_OPTIONS, installLogging, type ConsoleLike, type ProcessEvents } from '../../main/logging.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deskbase-logs-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const at = new Date('2026-11-26T10:00:00.000Z');

describe('the log file', () => {
  it('appends time-stamped lines, every line of a stack stamped, creating the folder', async () => {
    const logs = join(dir, 'logs');
    const file = openLogFile({ dir: logs, now: () => at });
    file.write('info', 'Deskbase is running at http://127.0.0.1:8090/_/');
    file.write('error', 'Error: boom\n    at f (main.ts:1)');
    expect(file.path).toBe(join(logs, LOG_FILE_NAME));
    expect(await readFile(file.path, 'utf8')).toBe(
      '2026-11-26T10:00:00.000Z info  Deskbase is running at http://127.0.0.1:8090/_/\n' +
        '2026-11-26T10:00:00.000Z error Error: boom\n' +
        '2026-11-26T10:00:00.000Z error     at f (main.ts:1)\n',
    );
  });

  it('rotates past maxBytes, keeping `keep` older files and dropping the oldest', async () => {
    const file = openLogFile({ dir, maxBytes: 200, keep: 2, now: () => at });
    // each line is 31 + 30 + 1 = 62 bytes: three fit in 200, the fourth starts a new file
    for (let i = 0; i < 14; i++) file.write('info', `line ${String(i).padStart(2, '0')} ${'x'.repeat(22)}`);
    expect((await readdir(dir)).sort()).toEqual([rotatedName(0), rotatedName(1), rotatedName(2)].sort());
    const text = async (n: number) => (await readFile(join(dir, rotatedName(n)), 'utf8')).split('\n').filter(Boolean).map((l) => l.slice(31, 38));
    expect(await text(0)).toEqual(['line 12', 'line 13']);
    expect(await text(1)).toEqual(['line 09', 'line 10', 'line 11']);
    expect(await text(2)).toEqual(['line 06', 'line 07', 'line 08']);
    for (const n of [0, 1, 2]) expect((await readFile(join(dir, rotatedName(n)))).length).toBeLessThanOrEqual(200);
  });

  it('continues an existing file across restarts, counting its size', async () => {
    openLogFile({ dir, maxBytes: 200, now: () => at }).write('info', 'x'.repeat(120));
    const again = openLogFile({ dir, maxBytes: 200, now: () => at });
    again.write('info', 'y'.repeat(120));
    expect(await readFile(join(dir, rotatedName(1)), 'utf8')).toContain('x'.repeat(120));
    expect(await readFile(join(dir, rotatedName(0)), 'utf8')).toContain('y'.repeat(120));
  });

  it('a folder it cannot write is reported once and never throws', async () => {
    // a file where the folder should be: mkdir fails even for root
    const blocked = join(dir, 'blocked');
    await writeFile(blocked, '');
    const failures: string[] = [];
    const file = openLogFile({ dir: blocked, now: () => at, onFailure: (m) => failures.push(m) });
    expect(() => {
      file.write('info', 'one');
      file.write('info', 'two');
    }).not.toThrow();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/could not write the log file .*main\.log/);
  });
});

describe('installLogging', () => {
  function setup() {
    const file = openLogFile({ dir, now: () => at });
    const printed: string[] = [];
    const fakeConsole: ConsoleLike = {
      log: (...a) => printed.push(`log:${a.join(' ')}`),
      info: (...a) => printed.push(`info:${a.join(' ')}`),
      warn: (...a) => printed.push(`warn:${a.join(' ')}`),
      error: (...a) => printed.push(`error:${a.join(' ')}`),
    };
    const proc = new EventEmitter();
    const uncaught: Error[] = [];
    const undo = installLogging({ file, console: fakeConsole, process: proc as unknown as ProcessEvents, onUncaught: (e) => uncaught.push(e) });
    const lines = async () => (await readFile(file.path, 'utf8')).split('\n').filter(Boolean);
    return { file, fakeConsole, printed, proc, uncaught, undo, lines };
  }

  it('tees the console (the server\'s lines and ours) into the file, still printing them', async () => {
    const { fakeConsole, printed, lines } = setup();
    fakeConsole.log('Setup token: %s', 'abc');
    fakeConsole.warn('careful');
    fakeConsole.error('store: background checkpoint failed: disk full');
    expect(printed).toEqual(['log:Setup token: %s abc', 'warn:careful', 'error:store: background checkpoint failed: disk full']);
    expect(await lines()).toEqual([
      '2026-11-26T10:00:00.000Z info  Setup token: abc',
      '2026-11-26T10:00:00.000Z warn  careful',
      '2026-11-26T10:00:00.000Z error store: background checkpoint failed: disk full',
    ]);
  });

  it('logs an uncaught exception with its stack and tells the app', async () => {
    const { proc, uncaught, lines } = setup();
    const error = new Error('kaboom');
    proc.emit('uncaughtException', error, 'uncaughtException');
    expect(uncaught).toEqual([error]);
    const text = (await lines()).join('\n');
    expect(text).toContain('error Uncaught exception (uncaughtException): Error: kaboom');
    expect(text).toMatch(/error\s+at .*main\/logging\.test\.ts/);
  });

  it('logs an unhandled rejection, whatever was thrown', async () => {
    const { proc, lines } = setup();
    proc.emit('unhandledRejection', new TypeError('no such thing'));
    proc.emit('unhandledRejection', { code: 42 });
    const text = (await lines()).join('\n');
    expect(text).toContain('error Unhandled rejection: TypeError: no such thing');
    expect(text).toContain('error Unhandled rejection: { code: 42 }');
  });

  it('undo restores the console', () => {
    const { fakeConsole, undo, printed } = setup();
    const teed = fakeConsole.log;
    undo();
    expect(fakeConsole.log).not.toBe(teed);
    fakeConsole.log('plain');
    expect(printed).toEqual(['log:plain']);
  });

  it('crash reports stay on this machine', () => {
    expect(CRASH_REPORTER_OPTIONS.uploadToServer).toBe(false);
  });
});
