// A checkpoint's copy written to its file as it is made (store/export.ts `exportToFile`): the file holds
// the database page for page, its id (size, CRC-32) is the one `snapshotId` computes over the file, the
// loop gets turns between the steps, and the database is never held twice in memory.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../server/store/db.js';
import { exportToFile } from '../../server/store/export.js';
import { crc32Combine, snapshotId } from '../../server/store/journal-format.js';

const dir = mkdtempSync(join(tmpdir(), 'deskbase-export-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Header bytes a copy writes differently: the change counter, the schema cookie, the writer's version. */
const COUNTERS = new Set([24, 25, 26, 27, 40, 41, 42, 43, 92, 93, 94, 95]);

describe('crc32Combine', () => {
  it('answers the CRC-32 of two pieces joined, whatever their lengths', () => {
    for (const [a, b] of [[0, 5], [1, 1], [4096, 3 * 2 ** 20 + 7], [13, 0], [65536, 1]]) {
      const x = randomBytes(a);
      const y = randomBytes(b);
      expect(crc32Combine(crc32(x), crc32(y), y.length)).toBe(crc32(Buffer.concat([x, y])));
    }
  });
});

describe('exportToFile', () => {
  it('writes the database to the file step by step and answers the id of what it wrote', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    db.run('PRAGMA locking_mode = EXCLUSIVE');
    db.run('PRAGMA journal_mode = MEMORY');
    db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
    db.run('CREATE INDEX t_body ON t (body)');
    db.run('BEGIN');
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    // about 8 MiB: several backup steps of 2 MiB
    for (let i = 0; i < 8000; i++) insert.run([randomBytes(500).toString('hex')]);
    insert.free();
    db.run('COMMIT');
    const whole = db.export();
    const path = join(dir, 'data.db.tmp');
    const file = await open(path, 'w+');
    let turns = 0;
    const id = await exportToFile(SQL, db, file, async () => {
      turns++;
      await new Promise((resolve) => setImmediate(resolve));
    });
    await file.close();
    expect(turns).toBeGreaterThanOrEqual(3);
    const written = readFileSync(path);
    expect(id).toEqual(snapshotId(written));
    expect(written.length).toBe(whole.length);
    const differing = [...written.keys()].filter((i) => written[i] !== whole[i] && !COUNTERS.has(i));
    expect(differing).toEqual([]);
    const copy = new SQL.Database(written);
    expect(copy.exec('PRAGMA integrity_check')[0].values).toEqual([['ok']]);
    expect(copy.exec('SELECT count(*) FROM t')[0].values).toEqual([[8000]]);
    copy.close();
    db.run("INSERT INTO t (body) VALUES ('after')");
    expect(db.exec('SELECT count(*) FROM t')[0].values).toEqual([[8001]]);
    db.close();
  });
});
