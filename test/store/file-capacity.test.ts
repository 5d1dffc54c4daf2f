// A loaded database's in-memory file gets its room once (store/snapshot.ts `withCapacity`): sql.js's file
// system keeps the array it is handed as the file's storage and writes that grow the file land in it,
// where without room every growth past the array replaced it by a copy of the whole file, an eighth
// larger (MEMFS.expandFileStorage: a stretch of seconds at a GiB).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../server/store/db.js';
import { openDatabase } from '../../server/store/recovery.js';
import { readSnapshot, snapshotPath } from '../../server/store/snapshot.js';
import { differingBytes } from '../support/sqlite-pages.js';

const dir = mkdtempSync(join(tmpdir(), 'deskbase-capacity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the in-memory file of a loaded database', () => {
  it('grows inside the room read with the snapshot, never replaced by a copy of itself', async () => {
    const SQL = await loadSqlJs();
    const seed = new SQL.Database();
    seed.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
    writeFileSync(snapshotPath(dir), seed.export());
    seed.close();

    const capacity = 64 * 2 ** 20;
    const bytes = await readSnapshot(dir, capacity);
    expect(bytes).not.toBeNull();
    const storage = bytes!.buffer;
    expect(storage.byteLength).toBe(capacity);
    const db = openDatabase(SQL, bytes, snapshotPath(dir), capacity);
    db.run('BEGIN');
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    // about 24 MiB: the file grows from 8 KiB through many of the file system's growth steps
    for (let i = 0; i < 12_000; i++) insert.run([randomBytes(1000).toString('hex')]);
    insert.free();
    db.run('COMMIT');
    const exported = db.export();
    expect(exported.length).toBeGreaterThan(20 * 2 ** 20);
    // the storage read at open holds the whole grown file: every write went into it
    const file = new Uint8Array(storage, 0, exported.length);
    expect(differingBytes(file, exported)).toEqual([]);
    db.close();
  });

  it('is read as it is without a capacity (a restore candidate, an inspected archive)', async () => {
    const bytes = await readSnapshot(dir);
    expect(bytes!.buffer.byteLength).toBeLessThan(2 ** 20);
  });
});
