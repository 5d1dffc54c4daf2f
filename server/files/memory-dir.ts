// A data folder for the files of an in-memory store (tests, `dir: null`): a temporary folder, made
// only once a file is written and removed when the process exits.
import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
let hooked = false;

export function memoryDataDir(): string {
  const dir = join(tmpdir(), `deskbase-mem-${process.pid}-${randomBytes(6).toString('hex')}`);
  made.push(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const d of made) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}
