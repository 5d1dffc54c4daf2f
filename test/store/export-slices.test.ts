// A checkpoint's and a backup's copy of the database in slices (store/export.ts) and a large journal
// entry framed in slices (journal-format.ts): the same bytes as the one-stretch forms, with the event
// loop given turns between the slices.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../server/store/db.js';
import { exportInSlices } from '../../server/store/export.js';
import { frameEntry, frameEntryInSlices } from '../../server/store/journal-format.js';
import { differingBytes, filledDatabase } from '../support/sqlite-pages.js';

describe('exportInSlices', () => {
  it('copies the database page for page, a step at a time, and the database stays usable', async () => {
    const SQL = await loadSqlJs();
    // about 8 MiB: several backup steps of 2 MiB
    const db = await filledDatabase(8000);
    const whole = db.export();
    let turns = 0;
    const sliced = await exportInSlices(SQL, db, async () => {
      turns++;
      await new Promise((resolve) => setImmediate(resolve));
    });
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(sliced.length).toBe(whole.length);
    expect(differingBytes(sliced, whole)).toEqual([]);
    const copy = new SQL.Database(sliced);
    expect(copy.exec('PRAGMA integrity_check')[0].values).toEqual([['ok']]);
    expect(copy.exec('SELECT count(*) FROM t')[0].values).toEqual([[8000]]);
    copy.close();
    db.run("INSERT INTO t (body) VALUES ('after')");
    expect(db.exec('SELECT count(*) FROM t')[0].values).toEqual([[8001]]);
    db.close();
  });
});

describe('frameEntryInSlices', () => {
  it('frames a payload given in pieces exactly as frameEntry frames it whole', async () => {
    const parts = [randomBytes(3), randomBytes(20 * 1024 * 1024 + 17), Buffer.alloc(0), randomBytes(1000)];
    let turns = 0;
    const framed = await frameEntryInSlices(parts, async () => {
      turns++;
    });
    expect(framed.equals(frameEntry(Buffer.concat(parts)))).toBe(true);
    expect(turns).toBeGreaterThanOrEqual(3);
  });
});
