// Damaged files: a torn or corrupt journal tail is dropped and the store goes on; anything worse makes
// openStore reject with a message naming the file, leaving the file as it was.
import { appendFileSync, readFileSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StatementEncoder } from '../../server/store/codec.js';
import { openStore } from '../../server/store/db.js';
import { frameEntry, HEADER_SIZE, listKeptAside, scanEntries } from '../../server/store/journal-format.js';
import { crashCopy, journalWith as journalWithIds, segmentFiles, startWriter, tableIds as ids, useStores, writeAtEnd } from '../fixtures/store-helpers.js';

const stores = useStores();
const { dirs, openAt } = stores;
const journalWith = (entries: string[]) => journalWithIds(stores, entries);


describe('journal tail damage', () => {
  it.each([
    ['torn mid-entry', (file: string) => truncateSync(file, statSync(file).size - 5)],
    ['torn inside the length prefix', (file: string) => truncateSync(file, lastEntryOffset(file) + 2)],
    ['a flipped byte in the last entry', (file: string) => flipByte(file, statSync(file).size - 3)],
    ['zeros appended after the last entry', (file: string) => appendFileSync(file, Buffer.alloc(64))],
  ])('drops a tail %s, keeps the earlier entries and appends after them', async (name, damage) => {
    const dir = await journalWith(['a', 'b', 'c']);
    const [segment] = segmentFiles(dir);
    // the entries alone, without the journal's preallocated room: the damage is at the file's end
    // (the same damage over the room: test/store/journal-room.test.ts)
    truncateSync(segment, scanEntries(readFileSync(segment)).end);
    const keepsAll = name.startsWith('zeros');
    const intactEnd = keepsAll ? statSync(segment).size : lastEntryOffset(segment);
    damage(segment);

    const store = await openAt(dir);
    const kept = keepsAll ? ['a', 'b', 'c'] : ['a', 'b'];
    expect((await ids(store))).toEqual(kept);
    // cut at the intact end (the zeros kept, or written since, are room: only zeros past it)
    expect(scanEntries(readFileSync(segment))).toMatchObject({ end: intactEnd, dataEnd: intactEnd });
    expect(await listKeptAside(dir)).toHaveLength(keepsAll ? 0 : 1);

    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['d', 'after recovery']));
    const again = dirs.make();
    crashCopy(dir, again);
    expect(await ids(await openAt(again))).toEqual([...kept, 'd']);
  });
});

describe('a segment whose header never reached the disk', () => {
  it('is deleted and appends go on in the segment before it', async () => {
    const dir = await journalWith(['a']);
    const torn = join(dir, 'journal.2.log');
    writeFileSync(torn, Buffer.from('DBJOU'));
    const store = await openAt(dir);
    expect((await ids(store))).toEqual(['a']);
    expect(segmentFiles(dir)).toEqual([join(dir, 'journal.1.log')]);
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['b', 'x']));
    const again = dirs.make();
    crashCopy(dir, again);
    expect(await ids(await openAt(again))).toEqual(['a', 'b']);
  });
});

describe('F7: a segment whose header was damaged after it took writes', () => {
  it('stops the start, naming the file, and leaves it untouched until its owner moves it', async () => {
    const dir = await journalWith(['a', 'b']);
    const [segment] = segmentFiles(dir);
    const bytes = readFileSync(segment);
    bytes[3] ^= 0x01; // one byte of the magic
    writeFileSync(segment, bytes);
    await expect(openStore({ dir })).rejects.toThrow(/journal\.1\.log: damaged journal segment header, with \d+ bytes of writes after it; refusing/);
    expect(readFileSync(segment).equals(bytes)).toBe(true);
    // the same again on the next start: nothing was dropped in between
    await expect(openStore({ dir })).rejects.toThrow(/journal\.1\.log: damaged journal segment header/);
    renameSync(segment, join(dirs.make(), 'kept.log'));
    const store = await openAt(dir); // the owner's choice: the folder without those writes
    expect(await store.get(`SELECT count(*) AS n FROM sqlite_master WHERE name = 't'`)).toEqual({ n: 0 });
  });

  it('a header-sized segment with a bad checksum is a torn creation: deleted', async () => {
    const dir = await journalWith(['a']);
    const torn = join(dir, 'journal.2.log');
    writeFileSync(torn, Buffer.alloc(HEADER_SIZE, 0));
    expect(await ids(await openAt(dir))).toEqual(['a']);
    expect(segmentFiles(dir)).toEqual([join(dir, 'journal.1.log')]);
  });
});

describe('damage that must stop the start', () => {
  it.each([
    ['not a SQLite file', () => Buffer.from('this is not a database at all, just text')],
    ['a SQLite header over garbage', () => Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(8192, 0xab)])],
  ])('rejects a snapshot that is %s, naming data.db, and leaves it untouched', async (_name, content) => {
    const dir = dirs.make();
    const snapshot = join(dir, 'data.db');
    writeFileSync(snapshot, content());
    const before = readFileSync(snapshot);
    await expect(openStore({ dir })).rejects.toThrow(/data\.db/);
    expect(readFileSync(snapshot).equals(before)).toBe(true);
    // The lock was released: the failure is about the file, not the folder being busy.
    await expect(openStore({ dir })).rejects.toThrow(/data\.db/);
  });

  it('rejects a journal that does not continue from the snapshot on disk', async () => {
    const dir = await journalWith(['a']);
    const other = dirs.make();
    const store = await openStore({ dir: other });
    await store.write((tx) => tx.run('CREATE TABLE z (x)'));
    await store.close();
    writeFileSync(join(dir, 'data.db'), readFileSync(join(other, 'data.db')));
    await expect(openStore({ dir })).rejects.toThrow(/does not continue from .*data\.db/);
  });

  it('rejects a damaged entry in a segment that is not the last, naming the segment', async () => {
    const dir = dirs.make();
    const store = await openAt(dir);
    await store.write((tx) => tx.run('CREATE TABLE t (id TEXT PRIMARY KEY, body TEXT)'));
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['a', 'x']));
    const beforeCheckpoint = dirs.make();
    crashCopy(dir, beforeCheckpoint);
    await store.checkpoint();
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['b', 'y']));
    // The old snapshot (none) with both segments: as if the checkpoint's rename never landed.
    crashCopy(dir, beforeCheckpoint);
    rmSync(join(beforeCheckpoint, 'data.db'));
    const [first] = segmentFiles(beforeCheckpoint);
    flipByte(first, scanEntries(readFileSync(first)).end - 2);
    await expect(openStore({ dir: beforeCheckpoint })).rejects.toThrow(/journal\.1\.log: damaged journal entry/);
  });

  it('stops with a clear error when a journal entry fails to replay', async () => {
    const dir = await journalWith(['a']);
    const encoder = new StatementEncoder();
    encoder.add('INSERT INTO missing_table VALUES (?)', [1]);
    writeAtEnd(segmentFiles(dir)[0], frameEntry(encoder.finish()));
    await expect(openStore({ dir })).rejects.toThrow(/cannot replay the journal entry at byte \d+ of .*journal\.1\.log: .*missing_table/);
  });
});

describe('a crash in the middle of a checkpoint', () => {
  it.each([
    ['before the snapshot rename', false],
    ['after the rename, before old segments are deleted', true],
  ])('recovers everything when it lands %s', async (_name, renamed) => {
    const dir = dirs.make();
    const store = await openAt(dir);
    await store.write((tx) => tx.run('CREATE TABLE t (id TEXT PRIMARY KEY, body TEXT)'));
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['a', 'x']));
    await store.checkpoint();
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['b', 'y']));
    const crashed = dirs.make();
    crashCopy(dir, crashed);
    const oldSnapshot = readFileSync(join(dir, 'data.db'));
    await store.checkpoint();
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['c', 'z']));
    // Old segment (b) from before, new segment (c) and, if the rename landed, the new snapshot.
    crashCopy(dir, crashed);
    if (!renamed) writeFileSync(join(crashed, 'data.db'), oldSnapshot);
    expect(segmentFiles(crashed)).toHaveLength(2);

    const reopened = await openAt(crashed);
    expect((await ids(reopened))).toEqual(['a', 'b', 'c']);
    expect(reopened.stats().replayed).toBe(renamed ? 1 : 2);
    expect(segmentFiles(crashed)).toHaveLength(renamed ? 1 : 2);
  });
});

describe('a disk that refuses writes', () => {
  it('rejects the refused writes with the error code, drops them from memory, and goes on', async () => {
    const dir = dirs.make();
    const writer = startWriter(['disk-full', dir], 64);
    expect((await writer.exited).code).toBe(0);
    const report = (label: string) => {
      const line = writer.lines.find((l) => l.startsWith(`${label} `));
      return JSON.parse(line?.slice(label.length + 1) ?? 'null') as Record<string, unknown>;
    };
    const refusal = report('after-refusal') as { acked: string[]; refused: { code: string }[]; memory: string[] };
    expect(refusal.refused.length).toBeGreaterThan(0);
    expect(refusal.refused.every((r) => r.code === 'EFBIG')).toBe(true);
    expect(refusal.memory).toEqual([...refusal.acked].sort());
    // The snapshot outgrows the limit too: the checkpoint fails, the journal still holds everything.
    expect(report('checkpoint')).toEqual({ result: 'EFBIG' });
    const final = report('final') as { acked: string[]; memory: string[] };
    expect(final.acked).toContain('after');

    const store = await openAt(dir);
    expect((await ids(store))).toEqual([...final.acked].sort());
  });
});

function flipByte(file: string, at: number): void {
  const bytes = readFileSync(file);
  bytes[at] ^= 0xff;
  writeFileSync(file, bytes);
}

function lastEntryOffset(file: string): number {
  const last = scanEntries(readFileSync(file)).entries.at(-1);
  if (last === undefined) throw new Error(`${file} has no entries`);
  return last.offset;
}

describe('replay in turns of the loop', () => {
  it("replaying a long journal (a start, and the reload after a failed journal write, which runs while the server answers others) gives the loop turns: no stretch of the replay's CPU is long", async () => {
    const dir = dirs.make();
    const store = await openAt(dir, { checkpointBytes: 1 << 30 });
    await store.write((tx) => tx.run('CREATE TABLE logs (id TEXT PRIMARY KEY, level INTEGER, message TEXT, data TEXT, created TEXT)'));
    const data = JSON.stringify({ type: 'request', url: '/api/collections/posts/records/abcdefghijklmno', method: 'GET', status: 200, userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' });
    let n = 0;
    while (store.stats().journalSize < 16 * 1024 * 1024) {
      await store.write(async (tx) => {
        for (let i = 0; i < 500; i++, n++) await tx.run('INSERT INTO logs VALUES (?,?,?,?,?)', [String(n).padStart(15, '0'), 0, 'GET /api/collections/posts/records', data, '2026-11-27 12:00:00.000Z']);
      });
    }
    const copy = dirs.make();
    crashCopy(dir, copy);
    // the longest stretch of this thread's CPU between two turns of the loop while the copy opens
    const cpu = (): number => Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6;
    let last = cpu();
    let longest = 0;
    let ticking = true;
    const tick = () => {
      const now = cpu();
      longest = Math.max(longest, now - last);
      last = now;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const opened = await openAt(copy, { checkpointBytes: 1 << 30 });
    ticking = false;
    expect(opened.stats().replayed).toBeGreaterThan(100);
    expect(await opened.get('SELECT count(*) AS n FROM logs')).toEqual({ n });
    // 16 MiB of journal is ~250 ms of CPU to replay here (load 8); slices are 20 ms of the loop's time
    expect(longest).toBeLessThan(100);
  }, 120_000);
});
