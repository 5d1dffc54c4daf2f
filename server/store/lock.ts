// One process at a time per data folder: two writers appending to the same journal would interleave
// their entries, and replay would then drop everything after the first clash.
//
// The lock is a listening local socket named after the folder, so the operating system decides whether
// its holder lives: the socket closes when the process ends, however it ends (kill -9, a crash, a zombie
// nobody has reaped yet, a reboot), and no pid is ever trusted (after a reboot a recorded pid often
// names some other process). Where the socket lives:
// - Linux: the abstract namespace, `\0deskbase-<hash of the folder's real path>`: no file, so nothing
//   stale is ever left behind;
// - Windows: the named pipe `\\.\pipe\deskbase-<hash>`, released with its process just the same;
// - elsewhere (macOS): the socket file `deskbase.lock` in the folder, or `<tmpdir>/deskbase-<hash>.lock`
//   when that path passes the ~104-byte limit of socket paths. A socket file outlives a crash, so one
//   nobody answers on is removed and taken over.
// A second server connects to the socket, hears the holder's pid, and refuses naming the folder.
import { createHash } from 'node:crypto';
import { realpath, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCode } from './files.js';

export const LOCK_FILE = 'deskbase.lock';
/** sun_path holds 108 bytes on Linux and 104 on macOS, the terminating NUL included. */
const MAX_SOCKET_PATH = 103;

export type LockKind = 'abstract' | 'pipe' | 'file';

export interface DirLock {
  release(): Promise<void>;
}

export interface LockOptions {
  /** Where the socket lives; by default chosen by platform (tests use 'file' to exercise macOS's way). */
  kind?: LockKind;
}

/** The socket a folder's lock listens on. */
export function lockAddress(realDir: string, kind: LockKind): string {
  const key = process.platform === 'win32' ? realDir.toLowerCase() : realDir;
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 32);
  if (kind === 'abstract') return `\0deskbase-${hash}`;
  if (kind === 'pipe') return `\\\\.\\pipe\\deskbase-${hash}`;
  const inFolder = join(realDir, LOCK_FILE);
  return Buffer.byteLength(inFolder) <= MAX_SOCKET_PATH ? inFolder : join(tmpdir(), `deskbase-${hash}.lock`);
}

function defaultKind(): LockKind {
  if (process.platform === 'linux') return 'abstract';
  return process.platform === 'win32' ? 'pipe' : 'file';
}

export async function lockDir(dir: string, options: LockOptions = {}): Promise<DirLock> {
  const kind = options.kind ?? defaultKind();
  const address = lockAddress(await realpath(dir), kind);
  for (let attempt = 0; attempt < 3; attempt++) {
    const server = await listen(address);
    if (server !== null) {
      return {
        release: async () => {
          await new Promise<void>((resolve) => server.close(() => resolve()));
          // node removes a socket file it listened on when it closes; a leftover is harmless, but tidy
          if (kind === 'file') await unlink(address).catch(() => undefined);
        },
      };
    }
    const holder = await askHolder(address);
    if (holder !== null) {
      throw new Error(
        `the data folder ${dir} is in use by another Deskbase (process ${holder || 'unknown'}): ` +
          'stop that one first, or choose another folder',
      );
    }
    // nobody answers: a socket file left by a crashed server (only files outlive their process)
    if (kind !== 'file') continue;
    await unlink(address).catch((err: unknown) => {
      if (errorCode(err) !== 'ENOENT') throw err;
    });
  }
  throw new Error(`cannot take the lock of the data folder ${dir} (${address.replace('\0', '@')})`);
}

/** Listens on `address`; null when something already does (or a file is in the way). */
function listen(address: string): Promise<Server | null> {
  return new Promise((resolve, reject) => {
    // each connection hears the holder's pid, for the refusal message
    const server = createServer((socket) => socket.end(`${process.pid}\n`));
    server.once('error', (err) => (errorCode(err) === 'EADDRINUSE' ? resolve(null) : reject(err)));
    server.listen(address, () => {
      server.unref(); // the lock never keeps the process alive by itself
      resolve(server);
    });
  });
}

/**
 * Asks whoever listens on `address` for its pid: the pid ('' when it answered without one), or null
 * when nobody listens (a stale socket file, or none).
 */
function askHolder(address: string): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = createConnection(address);
    let text = '';
    let connected = false;
    const done = (value: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(connected ? '' : null), 2000);
    socket.setEncoding('utf8');
    socket.on('connect', () => (connected = true));
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => done(/^\d+/.exec(text.trim())?.[0] ?? ''));
    socket.on('error', () => done(connected ? '' : null));
  });
}
