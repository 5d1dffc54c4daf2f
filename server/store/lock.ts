// One process at a time per data folder: two writers appending to the same journal would interleave
// their entries, and replay would then drop everything after the first clash.
//
// The lock is a listening local socket, so the operating system decides whether its holder lives: the
// socket closes when the process ends, however it ends (kill -9, a crash, a zombie nobody has reaped
// yet, a reboot), and no pid is ever trusted (after a reboot a recorded pid often names some other
// process). Where the socket lives:
// - Unix: the socket file `deskbase.lock` inside the folder. It goes wherever the folder goes (renamed,
//   or seen from another network namespace: containers, Flatpak, Snap), and only who may write to the
//   folder can put anything there. (Not an abstract socket named after a hash of the path: renaming the
//   folder or another namespace escapes it, and any local user could take the predictable name first
//   to keep Deskbase from starting.) Paths too long for a socket address (~104 bytes) are
//   reached through a symlink to the folder in a private temporary folder.
// - Windows: the named pipe `\\.\pipe\deskbase-<hash of the folder's volume and file id>`, released with
//   its process just the same, and the same whatever the folder is renamed to.
// A second server connects to the socket, hears the holder's pid, and refuses naming the folder.
//
// Taking the name is atomic, so two servers starting at once cannot both hold it: each binds a socket of
// its own under a unique name in the folder and hard-links it to `deskbase.lock` (link fails when the name
// exists). A name nobody answers on is a socket file a crashed server left: it is replaced by rename, only
// while it is still the file found dead, and the new holder then checks, after a moment, that the name
// still reaches itself; a server that lost a takeover race backs off. Closing never unlinks another's name.
import { createHash, randomBytes } from 'node:crypto';
import { linkSync, lstatSync, renameSync } from 'node:fs';
import { mkdtemp, realpath, rm, stat, symlink, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCode } from '../durable-files.js';

export const LOCK_FILE = 'deskbase.lock';
/** sun_path holds 108 bytes on Linux and 104 on macOS, the terminating NUL included. */
const MAX_SOCKET_PATH = 103;
/** How long a server that replaced a dead socket file waits before checking the name still reaches it. */
const TAKEOVER_SETTLE_MS = 150;

export type LockKind = 'pipe' | 'file';

export interface DirLock {
  release(): Promise<void>;
}

export interface LockOptions {
  /** Where the socket lives; by default a named pipe on Windows and a socket file elsewhere. */
  kind?: LockKind;
}

export async function lockDir(dir: string, options: LockOptions = {}): Promise<DirLock> {
  const kind = options.kind ?? (process.platform === 'win32' ? 'pipe' : 'file');
  const realDir = await realpath(dir);
  return kind === 'pipe' ? lockPipe(dir, realDir) : lockFile(dir, realDir);
}

function inUse(dir: string, holder: string): Error {
  return new Error(`the data folder ${dir} is in use by another Deskbase (process ${holder || 'unknown'}): stop that one first, or choose another folder`);
}

async function lockPipe(dir: string, realDir: string): Promise<DirLock> {
  const { dev, ino } = await stat(realDir, { bigint: true });
  const address = `\\\\.\\pipe\\deskbase-${createHash('sha256').update(`${dev}:${ino}`).digest('hex').slice(0, 32)}`;
  const nonce = randomBytes(8).toString('hex');
  const server = await listen(address, nonce);
  if (server === null) throw inUse(dir, (await askHolder(address))?.pid ?? '');
  return { release: () => closeServer(server) };
}

async function lockFile(dir: string, realDir: string): Promise<DirLock> {
  const lockPath = join(realDir, LOCK_FILE);
  const nonce = randomBytes(8).toString('hex');
  const own = `${LOCK_FILE}.${nonce}`;
  const via = await shortPath(realDir);
  try {
    const server = await listen(via.path(own), nonce).catch((err: unknown) => {
      throw new Error(`the data folder ${dir} cannot hold its lock, the socket file ${LOCK_FILE} (${errorCode(err) ?? String(err)}): choose a folder on a local disk`);
    });
    if (server === null) throw new Error(`cannot create ${join(realDir, own)}`);
    try {
      await takeName(dir, join(realDir, own), lockPath, via.path(LOCK_FILE), nonce);
    } catch (err) {
      await closeServer(server); // removes only its own unique name
      throw err;
    }
    await unlink(join(realDir, own)).catch(() => undefined); // `deskbase.lock` is the socket's one name now
    const ino = inode(lockPath);
    return {
      release: async () => {
        await closeServer(server);
        // our name only: a server that took over after us keeps its own
        if (ino !== null && sameInode(lockPath, ino)) await unlink(lockPath).catch(() => undefined);
      },
    };
  } finally {
    await via.dispose();
  }
}

/** Gives the socket bound at `ownPath` the name `lockPath`, or throws when a live server holds it. */
async function takeName(dir: string, ownPath: string, lockPath: string, connectPath: string, nonce: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      linkSync(ownPath, lockPath);
      return;
    } catch (err) {
      if (errorCode(err) !== 'EEXIST') throw err;
    }
    const found = inode(lockPath);
    const holder = await askHolder(connectPath);
    if (holder !== null) throw inUse(dir, holder.pid);
    // nobody answers: a socket file (or an older lock file) a dead server left. Replace that file only:
    // checked and renamed without yielding, so another server's fresh socket is never the one replaced.
    if (found === null || !sameInode(lockPath, found)) continue;
    renameSync(ownPath, lockPath);
    await new Promise((resolve) => setTimeout(resolve, TAKEOVER_SETTLE_MS));
    const after = await askHolder(connectPath);
    if (after?.nonce === nonce) return;
    throw inUse(dir, after?.pid ?? ''); // another server replaced the same dead file after us
  }
  throw new Error(`cannot take the lock of the data folder ${dir} (${lockPath})`);
}

function inode(path: string): bigint | null {
  try {
    return lstatSync(path, { bigint: true }).ino;
  } catch {
    return null;
  }
}

function sameInode(path: string, ino: bigint): boolean {
  return inode(path) === ino;
}

/**
 * Socket addresses for names in `realDir`: the path itself when it fits in a socket address, else the
 * same name through a symlink to the folder in a private temporary folder (bind and connect follow it;
 * the socket file is created in the folder itself).
 */
async function shortPath(realDir: string): Promise<{ path: (name: string) => string; dispose: () => Promise<void> }> {
  const longest = join(realDir, `${LOCK_FILE}.0123456789abcdef`);
  if (Buffer.byteLength(longest) <= MAX_SOCKET_PATH) return { path: (name) => join(realDir, name), dispose: async () => undefined };
  const temp = await mkdtemp(join(tmpdir(), 'dbl-'));
  await symlink(realDir, join(temp, 'd'));
  return { path: (name) => join(temp, 'd', name), dispose: () => rm(temp, { recursive: true, force: true }) };
}

/** Listens on `address`; null when something already does (or a file is in the way). */
function listen(address: string, nonce: string): Promise<Server | null> {
  return new Promise((resolve, reject) => {
    // each connection hears the holder's pid (for the refusal message) and its nonce (for its own check)
    const server = createServer((socket) => socket.end(`${process.pid} ${nonce}\n`));
    server.once('error', (err) => (errorCode(err) === 'EADDRINUSE' ? resolve(null) : reject(err)));
    server.listen(address, () => {
      server.unref(); // the lock never keeps the process alive by itself
      resolve(server);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * Asks whoever listens on `address` who it is: its pid and nonce ('' when it answered without them), or
 * null when nobody listens (a dead socket file, a plain file, or none).
 */
function askHolder(address: string): Promise<{ pid: string; nonce: string } | null> {
  return new Promise((resolve) => {
    const socket = createConnection(address);
    let text = '';
    let connected = false;
    const answer = () => {
      const [pid = '', nonce = ''] = text.trim().split(' ');
      return { pid: /^\d+$/.test(pid) ? pid : '', nonce };
    };
    const done = (value: { pid: string; nonce: string } | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(connected ? answer() : null), 2000);
    socket.setEncoding('utf8');
    socket.on('connect', () => (connected = true));
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => done(answer()));
    socket.on('error', () => done(connected ? answer() : null));
  });
}
