// server/durable-files.ts: the one "temporary file, fsync, rename, folder sync" every layer uses.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorCode, replaceDurably, writeSynced } from '../../server/durable-files.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deskbase-durable-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('durable files', () => {
  it('replaces a file with bytes, a text or a stream, leaving no temporary file', async () => {
    const path = join(dir, 'a.bin');
    await replaceDurably(path, new Uint8Array([1, 2, 3]));
    expect([...(await readFile(path))]).toEqual([1, 2, 3]);
    await replaceDurably(path, 'text');
    expect(await readFile(path, 'utf8')).toBe('text');
    await replaceDurably(path, Readable.from([Buffer.from('str'), Buffer.from('eam')]), join(dir, 'own.tmp'));
    expect(await readFile(path, 'utf8')).toBe('stream');
    expect(await readdir(dir)).toEqual(['a.bin']);
  });

  it('a failed write keeps the old file and removes the temporary one', async () => {
    const path = join(dir, 'keep.txt');
    await writeFile(path, 'old');
    const failing = new Readable({
      read() {
        this.push('partial');
        this.destroy(new Error('source broke'));
      },
    });
    await expect(replaceDurably(path, failing)).rejects.toThrow('source broke');
    expect(await readFile(path, 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['keep.txt']);
  });

  it("'wx' never writes over an existing file", async () => {
    const path = join(dir, 'once');
    await writeSynced(path, 'first', 'wx');
    const err = await writeSynced(path, 'second', 'wx').catch((e: unknown) => e);
    expect(errorCode(err)).toBe('EEXIST');
    expect(await readFile(path, 'utf8')).toBe('first');
  });
});
