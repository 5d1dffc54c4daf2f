// A damaged journal tail is kept, not destroyed: recovery used to truncate the last segment at its
// first bad entry, losing every byte after it. Those bytes now go to `journal.<n>.log.damaged-<time>`
// beside the segment (synced) before it is cut, and the log says what was kept and where: through
// openStore's `log`, and through startServer's `log` (the CLI's and the desktop app's log).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.js';
import { scanEntries } from '../../server/store/journal-format.js';
import { crashCopy, journalWith as journalWithIds, segmentFiles, tableIds as ids, useStores } from '../fixtures/store-helpers.js';

const stores = useStores();
const { dirs, openAt } = stores;
const journalWith = (entries: string[]) => journalWithIds(stores, entries);


/** Flips a byte inside the entry of `index` (0 is CREATE TABLE); returns where that entry starts. */
function damageEntry(segment: string, index: number): number {
  const bytes = readFileSync(segment);
  const entry = scanEntries(bytes).entries[index];
  bytes[entry.offset + 12] ^= 0xff;
  writeFileSync(segment, bytes);
  return entry.offset;
}

const damagedFiles = (dir: string) => readdirSync(dir).filter((n) => /^journal\.1\.log\.damaged-/.test(n));

describe('a damaged journal tail', () => {
  it('is moved aside byte for byte before the segment is cut, and the log says where', async () => {
    const dir = await journalWith(['a', 'b', 'c', 'd', 'e']);
    const [segment] = segmentFiles(dir);
    const at = damageEntry(segment, 3); // the entry of 'c': 'c', 'd' and 'e' are after the damage
    const before = readFileSync(segment);
    const { dataEnd } = scanEntries(before); // the zeros after it are the journal's room: not kept

    const lines: string[] = [];
    const store = await openAt(dir, { log: (line) => lines.push(line) });
    expect((await ids(store))).toEqual(['a', 'b']);
    expect(readFileSync(segment).subarray(0, at)).toEqual(before.subarray(0, at));
    expect(scanEntries(readFileSync(segment))).toMatchObject({ end: at, dataEnd: at });
    const [aside] = damagedFiles(dir);
    expect(aside).toBeDefined();
    expect(readFileSync(join(dir, aside))).toEqual(before.subarray(at, dataEnd));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`journal.1.log held ${dataEnd - at} bytes after its last intact entry (byte ${at}`);
    expect(lines[0]).toContain(`moved them to ${aside}`);

    // the store goes on after the kept part, and the kept file stays out of the journal
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['f', 'after recovery']));
    const again = dirs.make();
    crashCopy(dir, again);
    expect(await ids(await openAt(again))).toEqual(['a', 'b', 'f']);
  });

  it('a clean journal keeps nothing aside and logs nothing', async () => {
    const dir = await journalWith(['a']);
    const lines: string[] = [];
    await openAt(dir, { log: (line) => lines.push(line) });
    expect(damagedFiles(dir)).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('startServer hands the line to its log (the CLI\'s and the desktop app\'s)', async () => {
    const dir = await journalWith(['a', 'b']);
    damageEntry(segmentFiles(dir)[0], 2);
    const lines: string[] = [];
    const server = await startServer({ dir, port: 0, uiDir: null, log: (line) => lines.push(line) });
    try {
      expect(lines.filter((l) => /journal\.1\.log held \d+ bytes .* moved them to journal\.1\.log\.damaged-/.test(l))).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
