// The journal's preallocated room (store/journal.ts): the active segment is kept zero-filled and synced
// a chunk past its last entry, so an O_DSYNC append does not commit a new file size. On real files: a
// crash leaves the entries then zeros, a clean end (nothing kept aside, nothing logged, appends go on
// after the last entry); what is not zeros after the last intact entry (an entry torn over the zeros, a
// hole then a later group's bytes) is kept aside and cut as before; a zero-fill the disk refuses stops
// only the room, never an append.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StatementEncoder } from '../../server/store/codec.js';
import { JournalWriter, ROOM_CHUNK_MIN } from '../../server/store/journal.js';
import type { JournalCounters } from '../../server/store/journal.js';
import { frameEntry, HEADER_SIZE, listKeptAside, scanEntries } from '../../server/store/journal-format.js';
import { crashCopy, journalWith, segmentFiles, tableIds, useStores, writeAtEnd } from '../fixtures/store-helpers.js';

const stores = useStores();

const insert = (id: string): Buffer => {
  const encoder = new StatementEncoder();
  encoder.add('INSERT INTO t VALUES (?, ?)', [id, `body of ${id}`]);
  return encoder.finish();
};

/** A crash copy of a folder with rows a, b, c whose segment ends in room (zeros past the last entry). */
async function withRoom(): Promise<{ dir: string; segment: string; end: number }> {
  for (;;) {
    const dir = await journalWith(stores, ['a', 'b', 'c']);
    const [segment] = segmentFiles(dir);
    const bytes = readFileSync(segment);
    const { end, dataEnd } = scanEntries(bytes);
    expect(dataEnd).toBe(end); // only zeros after the entries, whenever the copy was taken
    // the copy may be taken before the first zero-fill landed: take another then
    if (bytes.length >= end + 1024) return { dir, segment, end };
  }
}

const open_ = (dir: string, lines: string[]) => stores.openAt(dir, { log: (line) => lines.push(line) });

describe('a segment ending in preallocated room', () => {
  it('is a clean end: nothing kept aside or logged, and the next append goes right after the last entry, into the zeros', async () => {
    const { dir, segment, end } = await withRoom();
    const lines: string[] = [];
    const store = await open_(dir, lines);
    expect(await tableIds(store)).toEqual(['a', 'b', 'c']);
    expect(await listKeptAside(dir)).toEqual([]);
    expect(lines).toEqual([]);
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['d', 'after reopening']));
    const bytes = readFileSync(segment);
    const scan = scanEntries(bytes);
    expect(scan.entries.at(-1)?.offset).toBe(end);
    expect(scan.dataEnd).toBe(scan.end);
    expect(bytes.length).toBeGreaterThan(scan.end); // still room after it
    const again = stores.dirs.make();
    crashCopy(dir, again);
    const reopened = await open_(again, lines);
    expect(await tableIds(reopened)).toEqual(['a', 'b', 'c', 'd']);
    expect(await listKeptAside(again)).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('an entry torn over the zeros is kept aside (its bytes, not the zeros after them) and cut, and the log says so', async () => {
    const { dir, segment, end } = await withRoom();
    const torn = frameEntry(insert('d')).subarray(0, 20);
    writeAtEnd(segment, torn);
    const lines: string[] = [];
    const store = await open_(dir, lines);
    expect(await tableIds(store)).toEqual(['a', 'b', 'c']);
    const [aside] = await listKeptAside(dir);
    expect(readFileSync(join(dir, aside))).toEqual(torn);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`held ${torn.length} bytes after its last intact entry (byte ${end}`);
    expect(scanEntries(readFileSync(segment))).toMatchObject({ end, dataEnd: end });
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['e', 'after recovery']));
    const again = stores.dirs.make();
    crashCopy(dir, again);
    expect(await tableIds(await stores.openAt(again))).toEqual(['a', 'b', 'c', 'e']);
  });

  it('a hole in the zeros, then a later group\'s entry, is still damage: not replayed, kept aside from the hole on, cut at the hole', async () => {
    const { dir, segment, end } = await withRoom();
    const lost = frameEntry(insert('d')); // an earlier group that never reached the disk: zeros
    const later = frameEntry(insert('e')); // a later one that did
    const handle = await open(segment, 'r+');
    await handle.write(later, 0, later.length, end + lost.length);
    await handle.close();
    const lines: string[] = [];
    const store = await open_(dir, lines);
    expect(await tableIds(store)).toEqual(['a', 'b', 'c']);
    const [aside] = await listKeptAside(dir);
    expect(readFileSync(join(dir, aside))).toEqual(Buffer.concat([Buffer.alloc(lost.length), later]));
    expect(lines).toHaveLength(1);
    expect(scanEntries(readFileSync(segment))).toMatchObject({ end, dataEnd: end });
  });
});

describe('the room\'s zero-fill', () => {
  it('refused by the disk (ENOSPC) stops only the room: appends go on and are acknowledged, growing the file, and the room comes back once the disk takes it', async () => {
    const dir = await journalWith(stores, ['a']);
    const [path] = segmentFiles(dir);
    const size = scanEntries(readFileSync(path)).end;
    const handle = await open(path, 'r+');
    await handle.truncate(size);
    const counters: JournalCounters = { entries: 0, syncs: 0, bytes: 0 };
    const failures: Error[] = [];
    let refuse = true;
    const fills: string[] = [];
    const journal = new JournalWriter(dir, { handle, seq: 1, size }, counters, (error) => failures.push(error), {
      zeroFill: async (h, at, length) => {
        fills.push(refuse ? 'refused' : 'made');
        if (refuse) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        await h.write(Buffer.alloc(length), 0, length, at);
        await h.datasync();
      },
    });
    await journal.roomReady();
    expect(fills).toEqual(['refused']);
    // a chunk's worth of appends, none refused: each grows the file
    const ids = Array.from({ length: 40 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    for (const id of ids.slice(0, 20)) await journal.append(insert(id));
    expect(failures).toEqual([]);
    expect(statSync(path).size).toBe(journal.activeSize);
    expect(journal.allocatedSize).toBe(journal.activeSize);
    // the disk has room again: once the writes pass another chunk, the zero-fill is tried again
    refuse = false;
    const filler = Buffer.alloc(ROOM_CHUNK_MIN, 'x').toString();
    const encoder = new StatementEncoder();
    encoder.add('INSERT INTO t VALUES (?, ?)', ['big', filler]);
    await journal.append(encoder.finish());
    for (const id of ids.slice(20)) await journal.append(insert(id));
    await journal.roomReady();
    expect(fills.at(-1)).toBe('made');
    expect(journal.allocatedSize).toBeGreaterThan(journal.activeSize);
    expect(statSync(path).size).toBe(journal.allocatedSize);
    expect(failures).toEqual([]);
    expect(counters.entries).toBe(41);
    await journal.close();
    const copy = stores.dirs.make();
    crashCopy(dir, copy);
    expect(await tableIds(await stores.openAt(copy))).toEqual(['a', 'big', ...ids].sort());
    expect(await listKeptAside(copy)).toEqual([]);
  });
});

describe('a segment torn while it was created with its room', () => {
  // a segment's header and zeros after it, the header never on disk (zeros, or a part of it): what a
  // crash left when createSegment wrote the room with the header before one sync (as it did before the
  // room moved to the background), or a file system that extended the file without its data. No entry
  // can be in it (an entry's bytes are never all zeros): nothing to keep
  it.each([
    ['zeros', () => Buffer.alloc(HEADER_SIZE)],
    ['a part of the header', (dir: string) => Buffer.concat([readFileSync(segmentFiles(dir)[0]).subarray(0, 7), Buffer.alloc(HEADER_SIZE - 7)])],
  ])('with %s for a header and only zeros after it held no entries: deleted, and appends go on in the segment before it', async (_name, header) => {
    const dir = await journalWith(stores, ['a']);
    const torn = join(dir, 'journal.2.log');
    writeFileSync(torn, Buffer.concat([header(dir), Buffer.alloc(ROOM_CHUNK_MIN)]));
    const store = await stores.openAt(dir);
    expect(await tableIds(store)).toEqual(['a']);
    expect(segmentFiles(dir)).toEqual([join(dir, 'journal.1.log')]);
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['b', 'x']));
    const again = stores.dirs.make();
    crashCopy(dir, again);
    expect(await tableIds(await stores.openAt(again))).toEqual(['a', 'b']);
  });
});
