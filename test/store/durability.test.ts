// What was acknowledged survives: a clean close, a crash without close, an exit, a kill -9 mid-stream.
import { execFileSync } from 'node:child_process';
import { constants, existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../server/store/db.js';
import type { Store } from '../../server/store/db.js';
import { crashCopy, startWriter, tableIds as ids, useStores } from '../fixtures/store-helpers.js';

const { dirs, openAt } = useStores();

async function seed(store: Store, count: number): Promise<void> {
  await store.write((tx) => tx.run('CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, n REAL, s TEXT)'));
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?, ?)', [`r${i}`, i === 0 ? -0 : i / 3, `row ${i}`])),
    ),
  );
}

describe('store durability', () => {
  it('keeps data across close and reopen, in a snapshot the sqlite3 CLI reads', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    await seed(store, 50);
    await store.close();
    expect(existsSync(join(dir, 'data.db'))).toBe(true);
    expect(existsSync(join(dir, 'deskbase.lock'))).toBe(false);
    expect(execFileSync('sqlite3', [join(dir, 'data.db'), 'SELECT count(*) FROM t']).toString().trim()).toBe('50');

    const again = await openAt(dir);
    expect(again.stats().replayed).toBe(0);
    expect(await again.get('SELECT n, s FROM t WHERE id = ?', ['r3'])).toEqual({ n: 1, s: 'row 3' });
    expect((await ids(again))).toHaveLength(50);
  });

  it('replays the journal when the store was never closed', async () => {
    const dir = dirs.make();
    const store = await openAt(dir);
    await seed(store, 30);
    await store.write((tx) => tx.run('UPDATE t SET s = ? WHERE id = ?', ['changed', 'r7']));
    const crashed = dirs.make();
    crashCopy(dir, crashed);
    expect(existsSync(join(crashed, 'data.db'))).toBe(false);

    const reopened = await openAt(crashed);
    expect(reopened.stats().replayed).toBe(32);
    expect((await ids(reopened))).toEqual((await ids(store)));
    expect(await reopened.get('SELECT s FROM t WHERE id = ?', ['r7'])).toEqual({ s: 'changed' });
    expect(await reopened.all('SELECT * FROM t ORDER BY id')).toEqual(await store.all('SELECT * FROM t ORDER BY id'));
  });

  it('replays what a process wrote before it exited without closing', async () => {
    const dir = dirs.make();
    const writer = startWriter(['exit', dir, '40']);
    expect(await writer.exited).toEqual({ code: 0, signal: null });
    expect(writer.lines).toEqual(['done']);
    const store = await openAt(dir);
    expect((await ids(store))).toEqual(Array.from({ length: 40 }, (_, i) => `e${i}`).sort());
  });

  it('keeps every acknowledged write when the writer is killed with SIGKILL mid-stream', async () => {
    const dir = dirs.make();
    // A small checkpoint threshold, so the kill may also land in the middle of a checkpoint.
    const writer = startWriter(['stream', dir, '20000']);
    await writer.until((lines) => lines.length >= 400);
    writer.child.kill('SIGKILL');
    expect((await writer.exited).signal).toBe('SIGKILL');
    const acked = writer.lines.filter((line) => line.startsWith('ack ')).map((line) => line.slice(4));
    expect(acked.length).toBeGreaterThanOrEqual(400);

    const store = await openAt(dir);
    const present = new Set((await ids(store)));
    expect(acked.filter((id) => !present.has(id))).toEqual([]);
    expect(existsSync(join(dir, 'data.db'))).toBe(true);
  });

  // Linux shows each descriptor's open flags (octal) in /proc/self/fdinfo
  it.skipIf(!existsSync('/proc/self/fdinfo'))('appends through the active segment opened with O_DSYNC: each group commit is one write that returns once durable', async () => {
    const dir = dirs.make();
    const store = await openAt(dir);
    await seed(store, 5);
    const stats = store.stats();
    const appending = readdirSync('/proc/self/fd').flatMap((fd) => {
      let target: string;
      try {
        target = readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return [];
      }
      if (!target.startsWith(dir) || !/journal\.\d+\.log$/.test(target)) return [];
      const flags = parseInt(/^flags:\s*(\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1] ?? '0', 8);
      return [flags];
    });
    expect(appending.some((flags) => (flags & constants.O_DSYNC) === constants.O_DSYNC)).toBe(true);
    expect(stats.journalBytes).toBeGreaterThan(0);
    await store.close();
    expect((await ids(await openAt(dir)))).toHaveLength(5);
  });

  it('refuses a second open of a folder in use, naming the folder; a stale lock file blocks nothing', async () => {
    const dir = dirs.make();
    const store = await openAt(dir);
    await expect(openStore({ dir })).rejects.toThrow(new RegExp(`data folder ${dir} is in use by another Deskbase \\(process ${process.pid}\\)`));
    await store.close();

    // the old lock file format, naming a live process (the pid of a crashed server, reused): not trusted
    writeFileSync(join(dir, 'deskbase.lock'), `${process.pid} 0123456789abcdef\n`);
    const reopened = await openAt(dir);
    await reopened.write((tx) => tx.run('CREATE TABLE u (x)'));
  });
});
