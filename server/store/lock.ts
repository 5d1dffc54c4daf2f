// One process at a time per data folder: two writers appending to the same journal would interleave
// their entries, and replay would then drop everything after the first clash. The lock file holds the
// owner's pid and a token drawn once per process; a lock whose process is gone (crash, kill -9) is taken
// over, and so is one naming our own pid with another token (a container restarted with the same pid).
import { randomBytes } from 'node:crypto';
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCode } from './files.js';

export const LOCK_FILE = 'deskbase.lock';
const PROCESS_TOKEN = randomBytes(8).toString('hex');

export interface DirLock {
  release(): Promise<void>;
}

export async function lockDir(dir: string): Promise<DirLock> {
  const path = join(dir, LOCK_FILE);
  const content = `${process.pid} ${PROCESS_TOKEN}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(content);
      await handle.close();
      return { release: () => releaseIfOurs(path, content) };
    } catch (err) {
      if (errorCode(err) !== 'EEXIST') throw err;
    }
    const owner = await readOwner(path);
    if (owner !== null && isAlive(owner.pid) && (owner.pid !== process.pid || owner.token === PROCESS_TOKEN)) {
      throw new Error(
        `the data folder ${dir} is in use by process ${owner.pid} (lock file ${path}); ` +
          'if no other Deskbase runs on it, delete the lock file',
      );
    }
    await rm(path, { force: true });
  }
  throw new Error(`cannot take the lock file ${path}`);
}

async function readOwner(path: string): Promise<{ pid: number; token: string } | null> {
  const [pidText = '', token = ''] = (await readFile(path, 'utf8').catch(() => '')).trim().split(' ');
  const pid = Number(pidText);
  return Number.isInteger(pid) && pid > 0 ? { pid, token } : null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return errorCode(err) === 'EPERM';
  }
}

async function releaseIfOurs(path: string, content: string): Promise<void> {
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current === content) await rm(path, { force: true });
}
