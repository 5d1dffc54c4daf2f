// Pipelined group commits (store/journal.ts): a group's write starts while the one before it is still in
// flight, each at its own offset of the segment, and acknowledgements go in commit order. These tests
// stage, on real files, what a crash between two such writes leaves: the later group durable, the
// earlier not (a hole in the segment). The write of one group is held (or failed) by wrapping the real
// write; everything else (the segment, recovery, the store reopened on a crash copy) is the real thing.
import { constants, readFileSync, statSync, truncateSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeFully } from '../../server/durable-files.js';
import { QueryBudget } from '../../server/store/db.js';
import type { Store, WriteTx } from '../../server/store/db.js';
import { StatementEncoder } from '../../server/store/codec.js';
import { JournalWriter } from '../../server/store/journal.js';
import type { JournalCounters } from '../../server/store/journal.js';
import { listKeptAside, scanEntries, segmentPath } from '../../server/store/journal-format.js';
import { crashCopy, journalWith, segmentFiles, tableIds, useStores } from '../fixtures/store-helpers.js';
import { fuzzRuns } from '../fixtures/hardening-soak.js';

const stores = useStores();

const insert = (id: string): Buffer => {
  const encoder = new StatementEncoder();
  encoder.add('INSERT INTO t VALUES (?, ?)', [id, `body of ${id}`]);
  return encoder.finish();
};

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Resolves once `holds()` is true (checked every millisecond); fails the test after 5 s. */
async function until(holds: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!holds()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${holds.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * A journal on the crash copy of a folder holding CREATE TABLE t and rows a, b, whose group writes go
 * through `write` (the real one by default), with preallocated room (zeros past the entries, kept
 * ahead of the writes) or without (`preallocate` false: the zeros are cut off first). Returns the
 * folder, the journal and its failures; `size` is where the intact entries end.
 */
async function journalOn(write: (call: number, handle: FileHandle, data: Uint8Array, at: number) => Promise<void>, dsync = true, preallocate = true) {
  const dir = await journalWith(stores, ['a', 'b']);
  const [path] = segmentFiles(dir);
  const size = scanEntries(readFileSync(path)).end;
  if (!preallocate) truncateSync(path, size);
  const handle = await open(path, 'r+');
  const counters: JournalCounters = { entries: 0, syncs: 0, bytes: 0 };
  const failures: Error[] = [];
  let calls = 0;
  const journal = new JournalWriter(dir, { handle, seq: 1, size, allocated: statSync(path).size }, counters, (error) => failures.push(error), {
    write: (h, data, at) => write(calls++, h, data, at),
    dsync,
    preallocate,
  });
  return { dir, path, size, journal, counters, failures };
}

/** Appends `id` and records when its promise settles, in `order`. */
const appendTracked = (journal: JournalWriter, id: string, order: string[]) =>
  journal.append(insert(id)).then(() => void order.push(`${id} ok`), (err: Error) => void order.push(`${id} ${err.message}`));

const crashCopyOf = (dir: string) => {
  const copy = stores.dirs.make();
  crashCopy(dir, copy);
  return copy;
};

// O_DSYNC writes (Linux, macOS), and the fallback of a write then an fdatasync per group (Windows);
// into preallocated room (zeros: a hole reads as zeros either way), and growing the file
describe.each([['O_DSYNC', true, true], ['write + fdatasync', false, true], ['O_DSYNC, no room', true, false]])('pipelined group commits (%s)', (_path, dsync, preallocate) => {
  it('a later group durable while an earlier one is not: not acknowledged, and recovery stops at the hole', async () => {
    const release = deferred();
    const started = [deferred(), deferred()];
    const secondDone = deferred();
    const { dir, path, size, journal, counters } = await journalOn(async (call, handle, data, at) => {
      started[call]?.resolve();
      if (call === 0) await release.promise;
      await writeFully(handle, data, at);
      if (call === 1) secondDone.resolve();
    }, dsync, preallocate);
    const order: string[] = [];
    const c = appendTracked(journal, 'c', order);
    await started[0].promise;
    const d = appendTracked(journal, 'd', order);
    // the second group's write starts while the first's is in flight, and returns: durable, but not acknowledged
    await secondDone.promise;
    await turns(3);
    expect(order).toEqual([]);

    // a crash now leaves a hole: the first group's bytes are zeros, the second's are on disk after them
    const first = insert('c').length + 8;
    const dataEnd = size + first + insert('d').length + 8;
    const onDisk = readFileSync(path);
    expect(scanEntries(onDisk)).toMatchObject({ end: size, dataEnd });
    if (!preallocate) expect(onDisk.length).toBe(dataEnd);
    expect(onDisk.subarray(size, size + first).every((byte) => byte === 0)).toBe(true);
    const crashed = crashCopyOf(dir);
    const recovered = await stores.openAt(crashed, { log: () => undefined });
    // nothing past the hole is replayed: d was durable but never acknowledged, and comes after c
    expect(await tableIds(recovered)).toEqual(['a', 'b']);
    const [aside] = await listKeptAside(crashed);
    // up to the last byte that is not zero: the room after d's bytes is not kept
    expect(readFileSync(join(crashed, aside))).toEqual(onDisk.subarray(size, dataEnd));
    // cut at the hole (then room again: only zeros past it)
    expect(scanEntries(readFileSync(segmentPath(crashed, 1)))).toMatchObject({ end: size, dataEnd: size });
    // the recovered store appends where the intact entries end; d never comes back
    await recovered.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['e', 'after the crash']));
    expect(await tableIds(await stores.openAt(crashCopyOf(crashed)))).toEqual(['a', 'b', 'e']);

    // once the first group is durable both are acknowledged, in commit order
    release.resolve();
    await Promise.all([c, d]);
    expect(order).toEqual(['c ok', 'd ok']);
    expect(counters).toMatchObject({ entries: 2, syncs: 2 });
    expect(journal.activeSize).toBe(dataEnd);
    await journal.close();
    expect(await tableIds(await stores.openAt(crashCopyOf(dir)))).toEqual(['a', 'b', 'c', 'd']);
  });

  it('an earlier group that fails takes the later, durable one with it, and the file is cut back before both', async () => {
    const fail = deferred();
    const firstStarted = deferred();
    const secondDone = deferred();
    const { dir, path, size, journal, failures } = await journalOn(async (call, handle, data, at) => {
      if (call === 0) {
        firstStarted.resolve();
        await fail.promise;
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      await writeFully(handle, data, at);
      if (call === 1) secondDone.resolve();
    }, dsync, preallocate);
    const order: string[] = [];
    const c = appendTracked(journal, 'c', order);
    await firstStarted.promise;
    const d = appendTracked(journal, 'd', order);
    await secondDone.promise;
    expect(scanEntries(readFileSync(path)).dataEnd).toBeGreaterThan(size);
    fail.resolve();
    await Promise.all([c, d]);
    expect(order).toEqual(['c ENOSPC: no space left on device, write', 'd ENOSPC: no space left on device, write']);
    expect(failures).toHaveLength(1);
    await journal.afterFailure();
    expect(readFileSync(path).length).toBe(size);
    await expect(journal.append(insert('e'))).rejects.toThrow('ENOSPC');
    await journal.close();
    expect(await tableIds(await stores.openAt(crashCopyOf(dir)))).toEqual(['a', 'b']);
  });

  it('a later group that fails: the earlier one is acknowledged once durable, the later rejected, the file cut after the earlier', async () => {
    const release = deferred();
    const firstStarted = deferred();
    const secondFailed = deferred();
    const { dir, path, size, journal, failures } = await journalOn(async (call, handle, data, at) => {
      if (call === 0) {
        firstStarted.resolve();
        await release.promise;
        return writeFully(handle, data, at);
      }
      // a short write: part of the group's bytes land, then the disk refuses the rest
      await writeFully(handle, data.subarray(0, 5), at);
      secondFailed.resolve();
      throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
    }, dsync, preallocate);
    const order: string[] = [];
    const c = appendTracked(journal, 'c', order);
    await firstStarted.promise;
    const d = appendTracked(journal, 'd', order);
    await secondFailed.promise;
    await turns(3);
    // the failure is not reported while the earlier group may still become durable
    expect(order).toEqual([]);
    expect(failures).toEqual([]);
    const e = appendTracked(journal, 'e', order); // queued behind the failed group: rejected with it
    release.resolve();
    await Promise.all([c, d, e]);
    expect(order).toEqual(['c ok', 'd EIO: i/o error, write', 'e EIO: i/o error, write']);
    expect(failures).toHaveLength(1);
    await journal.afterFailure();
    const end = size + insert('c').length + 8;
    expect(readFileSync(path).length).toBe(end);
    expect(scanEntries(readFileSync(path)).end).toBe(end);
    await journal.close();
    expect(await tableIds(await stores.openAt(crashCopyOf(dir)))).toEqual(['a', 'b', 'c']);
  });

  it('two groups in flight write and sync through two file descriptions: a sync cannot take the error of the other group\'s bytes', async () => {
    // Linux reports a failed writeback once per file description (errseq): through one shared by both
    // groups, the later group's O_DSYNC write (or fdatasync, on the fallback) could report the earlier
    // group's lost bytes and the earlier one return success, be acknowledged, and be gone. Through one
    // each, the earlier group's write hears of it too.
    const releases = [deferred(), deferred(), deferred()];
    const handles: FileHandle[] = [];
    /** The descriptor each fdatasync went through (the fallback syncs after its write). */
    const syncedFds: number[] = [];
    let inFlight = 0;
    const { dir, journal } = await journalOn(async (call, handle, data, at) => {
      handles[call] = handle;
      if (!dsync && !Object.hasOwn(handle, 'datasync')) {
        const datasync = handle.datasync.bind(handle);
        handle.datasync = () => {
          syncedFds.push(handle.fd);
          return datasync();
        };
      }
      inFlight++;
      await releases[call]?.promise;
      await writeFully(handle, data, at);
      inFlight--;
    }, dsync, preallocate);
    const writes = [journal.append(insert('c'))];
    await until(() => inFlight === 1);
    writes.push(journal.append(insert('d')));
    await until(() => inFlight === 2);
    expect(handles[0].fd).not.toBe(handles[1].fd);
    releases[0].resolve();
    releases[1].resolve();
    await Promise.all(writes);
    writes.push(journal.append(insert('e')));
    releases[2].resolve();
    await Promise.all(writes);
    // each is the segment, opened for writing, through O_DSYNC where it is used (the flags of the
    // description: /proc/self/fdinfo); on the fallback each group's fdatasync goes through its own
    for (const handle of [handles[0], handles[1], handles[2]]) {
      const flags = Number.parseInt(/flags:\s*([0-7]+)/.exec(readFileSync(`/proc/self/fdinfo/${handle.fd}`, 'utf8'))![1], 8);
      expect(flags & constants.O_DSYNC, `fd ${handle.fd}`).toBe(dsync ? constants.O_DSYNC : 0);
      expect(flags & 0o3, `fd ${handle.fd}: the access mode`).toBe(constants.O_WRONLY);
    }
    // (the two groups in flight may finish their writes, and so start their syncs, in either order)
    const byFd = (fds: number[]) => [...fds].sort((a, b) => a - b);
    expect(byFd(syncedFds)).toEqual(dsync ? [] : byFd([handles[0].fd, handles[1].fd, handles[2].fd]));
    await journal.close();
    expect(await tableIds(await stores.openAt(crashCopyOf(dir)))).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('holds at most two groups in flight, and a rotation waits until none is', async () => {
    const releases = [deferred(), deferred(), deferred()];
    let inFlight = 0;
    let most = 0;
    const { dir, journal } = await journalOn(async (call, handle, data, at) => {
      most = Math.max(most, ++inFlight);
      await releases[call]?.promise;
      await writeFully(handle, data, at);
      inFlight--;
    }, dsync, preallocate);
    const order: string[] = [];
    const writes = [appendTracked(journal, 'c', order)];
    await until(() => inFlight === 1);
    writes.push(appendTracked(journal, 'd', order));
    await until(() => inFlight === 2);
    writes.push(appendTracked(journal, 'e', order));
    const rotated = journal.rotate({ size: 0, crc: 0 }).then((seq) => void order.push(`rotated to ${seq}`));
    await turns(5);
    expect(most).toBe(2); // e waits for a free slot
    releases[1].resolve(); // the second group is durable first: nothing is acknowledged yet
    await until(() => inFlight === 1);
    await turns(3);
    expect(order).toEqual([]);
    releases[0].resolve();
    await until(() => order.length === 2);
    expect(order).toEqual(['c ok', 'd ok']);
    // e's group is in flight now; the rotation waits for it
    await until(() => inFlight === 1);
    await turns(3);
    expect(segmentFiles(dir)).toEqual([join(dir, 'journal.1.log')]);
    releases[2].resolve();
    await Promise.all([...writes, rotated]);
    expect(order).toEqual(['c ok', 'd ok', 'e ok', 'rotated to 2']);
    expect(most).toBe(2);
    await journal.close();
  });
});

describe.each([['O_DSYNC', true], ['write + fdatasync', false]])('pipelined group commits under random write outcomes (%s)', (_path, dsync) => {
  type Plan = { delay: number; outcome: 'ok' | 'fail' | 'short' };
  const plan = fc.record({ delay: fc.integer({ min: 0, max: 3 }), outcome: fc.constantFrom<Plan['outcome']>('ok', 'ok', 'ok', 'fail', 'short') });

  it('acknowledges a prefix in commit order, rejects the rest, and the disk (file and reopened store) holds exactly what was acknowledged; a crash copy taken meanwhile recovers a prefix covering every acknowledgement', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(plan, { minLength: 1, maxLength: 12 }), fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 14 }), fc.integer({ min: 0, max: 14 }), async (plans, gaps, crashAt) => {
        const { dir, path, journal } = await journalOn(async (call, handle, data, at) => {
          const p = plans[call] ?? { delay: 0, outcome: 'ok' };
          await new Promise((resolve) => setTimeout(resolve, p.delay));
          if (p.outcome === 'fail') throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
          if (p.outcome === 'short') {
            await writeFully(handle, data.subarray(0, Math.max(1, data.length >> 1)), at);
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          }
          await writeFully(handle, data, at);
        }, dsync);
        const ids = gaps.map((_, i) => `e${String(i).padStart(2, '0')}`); // sorted as made (tableIds sorts)
        const outcomes: string[] = [];
        const settled: Promise<void>[] = [];
        // a crash while groups are in flight: the folder as it is at that instant, and what was acknowledged by then
        let crash: { copy: string; acked: number } | null = null;
        for (let i = 0; i < ids.length; i++) {
          if (i === crashAt) crash = { copy: crashCopyOf(dir), acked: outcomes.filter((o) => o.endsWith(' ok')).length };
          // 0: in the same turn as the one before (same group), else a turn or a millisecond later
          if (gaps[i] === 1) await new Promise((resolve) => setImmediate(resolve));
          if (gaps[i] === 2) await new Promise((resolve) => setTimeout(resolve, 1));
          settled.push(journal.append(insert(ids[i])).then(() => void outcomes.push(`${ids[i]} ok`), () => void outcomes.push(`${ids[i]} no`)));
        }
        await Promise.all(settled);
        await journal.afterFailure().catch(() => undefined);
        // settled in commit order: acknowledgements first, a prefix; then every rejection
        const acked = outcomes.filter((o) => o.endsWith(' ok')).map((o) => o.split(' ')[0]);
        expect(outcomes).toEqual(ids.map((id, i) => `${id} ${i < acked.length ? 'ok' : 'no'}`));
        // the file holds the acknowledged entries, then only zeros (the room) or nothing
        const bytes = readFileSync(path);
        expect(scanEntries(bytes)).toMatchObject({ end: journal.activeSize, dataEnd: journal.activeSize });
        await journal.close();
        expect(await tableIds(await stores.openAt(crashCopyOf(dir), { log: () => undefined }))).toEqual(['a', 'b', ...acked]);
        if (crash !== null) {
          // a prefix of the entries (recovery stops at a hole), covering all acknowledged before the crash
          const recovered = (await tableIds(await stores.openAt(crash.copy, { log: () => undefined }))).slice(2);
          expect(recovered).toEqual(ids.slice(0, recovered.length));
          expect(recovered.length).toBeGreaterThanOrEqual(crash.acked);
        }
      }),
      { numRuns: fuzzRuns(20) },
    );
  });
});

/**
 * A store on `dir` whose next journal write, once `fail.armed`, says so (`fail.started`) and then fails
 * with EIO when `fail.now` is resolved.
 */
async function storeFailingOnce(dir: string, options: { lockWaitMs?: number }) {
  const fail = { armed: false, started: deferred(), now: deferred() };
  const store = await stores.openAt(dir, {
    ...options,
    journal: {
      write: async (handle, data, at) => {
        if (fail.armed) {
          fail.armed = false;
          fail.started.resolve();
          await fail.now.promise;
          throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
        }
        await writeFully(handle, data, at);
      },
    },
  });
  return { store, fail };
}

/** Arms the failure and starts a write it will reject, once that write's journal write has begun: what the write answers. */
async function writeFailing(store: Store, fail: { armed: boolean; started: ReturnType<typeof deferred> }): Promise<{ rejected: Promise<string> }> {
  fail.armed = true;
  const rejected = store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['x', 'rejected'])).then(() => 'acknowledged', (err: Error) => err.message);
  await fail.started.promise;
  return { rejected };
}

/** The store writes again after the failure, and the disk holds exactly what was acknowledged. */
async function expectWritesAgain(store: Store, dir: string): Promise<void> {
  await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['y', 'after']));
  expect(await tableIds(await stores.openAt(crashCopyOf(dir)))).toEqual(['a', 'y']);
}

/** What `outcome` settles to, or null past 10 s: a hang, not a slow machine (the waits tested are bounded at lockWaitMs, 300 ms). */
async function unlessHung(outcome: Promise<string>): Promise<string | null> {
  let settled: string | null = null;
  void outcome.then((o) => (settled = o));
  const end = Date.now() + 10_000;
  while (settled === null && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  return settled;
}

describe('reads after a failed journal write', () => {
  const read = 'SELECT id FROM t ORDER BY id';
  const ids = (rows: { id: string }[]) => rows.map((r) => r.id).join(',');
  it.each(['snapshot', 'backup'] as const)('a read made once the failure is known, while a %s holds the turn, waits for memory to be reloaded from disk: it never sees the write being rejected (store.all, reader, snapshot, backup)', async (holder) => {
    const dir = await journalWith(stores, ['a']);
    const { store, fail } = await storeFailingOnce(dir, {});
    const { rejected } = await writeFailing(store, fail);
    // a snapshot or backup holds the turn, so the reload (which takes the turn to replace memory) waits for it
    const hold = deferred();
    const holding = deferred();
    const holds = async () => {
      holding.resolve();
      await hold.promise;
    };
    const held = holder === 'snapshot' ? store.snapshot(holds) : store.backup(holds);
    await holding.promise;
    const before = store.version as number;
    fail.now.resolve();
    await until(() => (store.version as number) > before); // the failure is known (versions move at once)
    const outcomes: string[] = [];
    const reads = [
      store.all<{ id: string }>(read).then((rows) => void outcomes.push(`all ${ids(rows)}`)),
      store.reader(new QueryBudget(1000, 1 << 20)).all<{ id: string }>(read).then((rows) => void outcomes.push(`reader ${ids(rows)}`)),
      store.snapshot((db) => db.all<{ id: string }>(read)).then((rows) => void outcomes.push(`snapshot ${ids(rows)}`)),
      store.backup((db) => db.all<{ id: string }>(read)).then(({ alongside }) => void outcomes.push(`backup ${ids(alongside)}`)),
    ];
    await turns(5);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // before the fix these answered a,x: memory still held the rejected write
    expect(outcomes).toEqual([]);
    hold.resolve();
    await held;
    await Promise.all(reads);
    expect(outcomes.sort()).toEqual(['all a', 'backup a', 'reader a', 'snapshot a']);
    expect(await rejected).toBe('EIO: i/o error, write');
    expect(ids(await store.all(read))).toBe('a');
    // the store writes again, and the disk holds exactly what was acknowledged
    await expectWritesAgain(store, dir);
  });
  // Readers waiting for a write's open transaction: the turn (or the copy for readers the write makes,
  // `keepReadsGoing`) comes to them after the failure is known, while memory still holds the rejected write.
  it.each([
    ['no copy for readers', 'none'],
    ['a copy for readers made before the failure is known', 'before'],
    ['a copy for readers asked for once the failure is known: none is made', 'after'],
  ] as const)('readers waiting for an open transaction read what the disk holds once the failure is known (%s): snapshot, backup, store.all', async (_name, copy) => {
    const dir = await journalWith(stores, ['a']);
    const { store, fail } = await storeFailingOnce(dir, {});
    const { rejected } = await writeFailing(store, fail);
    const open = deferred();
    const known = deferred();
    // the open transaction, queued behind the failing write: its own entry is rejected with it
    const queued = store.write(async (tx) => {
      if (copy === 'before') await tx.keepReadsGoing?.();
      open.resolve();
      await known.promise;
      if (copy === 'after') await tx.keepReadsGoing?.();
      await tx.run('INSERT INTO t VALUES (?, ?)', ['z', 'queued']);
    }).then(() => 'acknowledged', () => 'rejected');
    await open.promise;
    const outcomes: string[] = [];
    const readers = (when: string) => [
      store.snapshot((db) => db.all<{ id: string }>(read)).then((rows) => void outcomes.push(`${when} snapshot ${ids(rows)}`)),
      store.backup((db) => db.all<{ id: string }>(read)).then(({ alongside }) => void outcomes.push(`${when} backup ${ids(alongside)}`)),
      store.all<{ id: string }>(read).then((rows) => void outcomes.push(`${when} all ${ids(rows)}`)),
    ];
    // made before the failure is known: waiting for the transaction (a snapshot on the copy made before
    // it reads at once the state of a read that ended just before it, and is not one of these)
    const early = copy === 'before' ? [] : readers('early');
    await turns(5);
    expect(outcomes).toEqual([]);
    const before = store.version as number;
    fail.now.resolve();
    await until(() => (store.version as number) > before); // the failure is known (versions move at once)
    const late = readers('late');
    known.resolve();
    await Promise.all([...early, ...late]);
    expect(outcomes.sort()).toEqual([
      ...(copy === 'before' ? [] : ['early all a', 'early backup a', 'early snapshot a']),
      'late all a', 'late backup a', 'late snapshot a',
    ]);
    expect(await rejected).toBe('EIO: i/o error, write');
    expect(await queued).toBe('rejected');
    await expectWritesAgain(store, dir);
  });
  it('a read from outside while a snapshot holding the turn waits on it (a hook\'s $app read during an onRecordEnrich) ends instead of waiting for a reload that waits for that turn', async () => {
    const dir = await journalWith(stores, ['a']);
    const { store, fail } = await storeFailingOnce(dir, { lockWaitMs: 300 });
    const { rejected } = await writeFailing(store, fail);
    const holding = deferred();
    const failed = deferred();
    // the snapshot (a record's answer, say) reads through the store itself once the failure is known,
    // as a hook's $app.findRecordById does from inside onRecordEnrich (hooks/app-ops.ts reading)
    const snapshot = store.snapshot(async () => {
      holding.resolve();
      await failed.promise;
      return store.all<{ id: string }>(read);
    }).then(() => 'answered', (err: Error) => `refused: ${err.message}`);
    await holding.promise;
    const before = store.version as number;
    fail.now.resolve();
    await until(() => (store.version as number) > before);
    failed.resolve();
    const outcome = await unlessHung(snapshot);
    expect(outcome).toMatch(/^refused: .*reload/);
    expect(await rejected).toBe('EIO: i/o error, write');
    // memory is reloaded: the rejected write is gone, and the store writes again
    expect((await store.all<{ id: string }>(read)).map((r) => r.id)).toEqual(['a']);
    await expectWritesAgain(store, dir);
  });
  /**
   * A journal write failing once, then a transaction (`first` run in it at once) that runs `body` once
   * the failure is known (the store reloaded past it): what the transaction came to ('answered', or
   * 'refused: <message>'), unless it hung; the failed write's rejection, and the store as it was read after.
   */
  async function insideOnceKnown(body: (store: Store, tx: WriteTx) => Promise<unknown>, first?: (tx: WriteTx) => Promise<unknown>) {
    const dir = await journalWith(stores, ['a']);
    const { store, fail } = await storeFailingOnce(dir, { lockWaitMs: 300 });
    const { rejected } = await writeFailing(store, fail);
    const open = deferred();
    const known = deferred();
    const inside = store.write(async (tx) => {
      await first?.(tx);
      open.resolve();
      await known.promise;
      return body(store, tx);
    }).then(() => 'answered', (err: Error) => `refused: ${err.message}`);
    await open.promise;
    const before = store.version as number;
    fail.now.resolve();
    await until(() => (store.version as number) > before);
    known.resolve();
    const outcome = await unlessHung(inside);
    expect(await rejected).toBe('EIO: i/o error, write');
    expect((await store.all<{ id: string }>(read)).map((r) => r.id)).toEqual(['a']);
    return { outcome, store, dir };
  }

  it.each(['all', 'snapshot', 'backup'] as const)('a read from outside made inside an open transaction once the failure is known fails as such a read does, instead of waiting for a reload that waits for that transaction (store.%s)', async (how) => {
    const { outcome } = await insideOnceKnown(async (store) => {
      // not through its tx
      if (how === 'all') return store.all<{ id: string }>(read);
      if (how === 'snapshot') return store.snapshot((db) => db.all<{ id: string }>(read));
      return (await store.backup((db) => db.all<{ id: string }>(read))).alongside;
    }, (tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['z', 'later']));
    expect(outcome).toMatch(/^refused: .*inside a write\(\) transaction/);
  });

  it('a transaction that asks to keep reads going once the failure is known gets no copy for readers: a read from inside it through the store fails as such a read does, instead of waiting for the reload', async () => {
    const { outcome, store, dir } = await insideOnceKnown(async (store, tx) => {
      // no reader may read a copy now (memory holds the write being rejected): none is made, and the
      // read below waits for this transaction as any read does, bounded
      await tx.keepReadsGoing?.();
      return store.all<{ id: string }>(read); // not through its tx
    });
    // before the change the copy was made, the read took it for one and waited for the reload, which
    // waited for this transaction: every write hung with it
    expect(outcome).toMatch(/^refused: .*inside a write\(\) transaction/);
    await expectWritesAgain(store, dir);
  });
});
