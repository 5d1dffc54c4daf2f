// The journal under random write sequences and crashes. Property: whatever the crash point, the
// database reopened from disk equals the state after some prefix of the writes issued, and that prefix
// covers every write that was acknowledged. Two kinds of crash:
// - in process: the data folder is copied (synchronously) while writes, syncs and checkpoints are in
//   flight, which is what a kill -9 at that instant leaves; copies with a damaged journal tail must
//   still open to some earlier acknowledged state;
// - a child process killed with SIGKILL at random points (during writes, checkpoints, even replay).
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../server/store/db.js';
import { HEADER_SIZE, scanEntries } from '../../server/store/journal-format.js';
import { bundle, runChild } from '../fixtures/hardening-child.js';
import { CREATE_TABLE, journaled, makeOps, readState, runOp, show, statesOf, type Op, type State } from '../fixtures/hardening-ops.js';
import { fuzzRuns, SOAK } from '../fixtures/hardening-soak.js';

const made: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'deskbase-hj-'));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const segmentNames = (dir: string): string[] => readdirSync(dir).filter((n) => /^journal\.\d+\.log$/.test(n))
  .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
const snapshotInode = (dir: string): number => (existsSync(join(dir, 'data.db')) ? statSync(join(dir, 'data.db')).ino : 0);

/**
 * Copies the folder as a crash at this instant leaves it. The copy runs on the main thread, but the
 * store's file operations go on in libuv's thread pool meanwhile, so the copy is taken in the order a
 * checkpoint cannot tear (segments oldest first, the snapshot last) and taken again if a checkpoint
 * renamed the snapshot or started a segment during it.
 */
function copyAsCrash(from: string): string {
  for (;;) {
    const to = tempDir();
    const names = segmentNames(from);
    const inode = snapshotInode(from);
    for (const name of names) copyFileSync(join(from, name), join(to, name));
    if (inode !== 0) copyFileSync(join(from, 'data.db'), join(to, 'data.db'));
    if (snapshotInode(from) === inode && segmentNames(from).join() === names.join()) return to;
  }
}

const lastSegment = (dir: string): string | null => {
  const names = segmentNames(dir);
  return names.length === 0 ? null : join(dir, names[names.length - 1]);
};

type Damage = { kind: 'none' } | { kind: 'truncate'; at: number } | { kind: 'flip'; at: number };

/**
 * Damages the tail of the last journal segment: `at` is a fraction of its written bytes past the header
 * (the zeros after them, the journal's room, left out: damage there is test/store/journal-room.test.ts's).
 */
function damage(dir: string, how: Damage): void {
  const file = lastSegment(dir);
  if (file === null || how.kind === 'none') return;
  const size = scanEntries(readFileSync(file)).dataEnd;
  if (size <= HEADER_SIZE) return;
  const offset = HEADER_SIZE + Math.floor(how.at * (size - HEADER_SIZE));
  if (how.kind === 'truncate') truncateSync(file, offset);
  else {
    const fd = openSync(file, 'r+');
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, offset);
    byte[0] ^= 0x5a;
    writeSync(fd, byte, 0, 1, offset);
    closeSync(fd);
  }
}

interface Life {
  seed: number;
  count: number;
  /** Copy the folder after this many bursts have been issued... */
  crashBurst: number;
  /** ...and this many turns of the event loop (0: before any I/O of the last burst completes). */
  turns: number;
  damage: Damage;
}

const lifeArb: fc.Arbitrary<Life> = fc.record({
  seed: fc.integer(),
  count: fc.integer({ min: 1, max: 60 }),
  crashBurst: fc.integer({ min: 0, max: 20 }),
  turns: fc.integer({ min: 0, max: 6 }),
  damage: fc.oneof(
    { weight: 3, arbitrary: fc.constant<Damage>({ kind: 'none' }) },
    { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((at): Damage => ({ kind: 'truncate', at })) },
    { weight: 1, arbitrary: fc.double({ min: 0, max: 0.999, noNaN: true }).map((at): Damage => ({ kind: 'flip', at })) },
  ),
});

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs a life's ops in bursts on `store`; copies the folder at the crash point. */
async function live(store: Store, dir: string, ops: Op[], life: Life): Promise<{ copy: string; acked: Set<number>; issued: number }> {
  const acked = new Set<number>();
  let copy: string | null = null;
  const seen = new Set<number>();
  let issued = 0;
  for (let burst = 0; copy === null; burst++) {
    const size = 1 + (Math.abs(life.seed + burst) % 6);
    const running: Promise<unknown>[] = [];
    for (const end = Math.min(ops.length, issued + size); issued < end; issued++) {
      const i = issued;
      running.push(runOp(store, ops[i]).then(() => void acked.add(i), () => undefined));
    }
    if (burst >= life.crashBurst || issued === ops.length) {
      for (let t = 0; t < life.turns; t++) await turn();
      for (const i of acked) seen.add(i);
      copy = copyAsCrash(dir);
    }
    await Promise.all(running);
  }
  return { copy, acked: seen, issued };
}

describe('journal under random writes and crashes (in process)', () => {
  it('the reopened database is an acknowledged prefix of the history', async () => {
    await fc.assert(fc.asyncProperty(fc.array(lifeArb, { minLength: 1, maxLength: 4 }), async (lives) => {
      let dir = tempDir();
      let state: State = new Map();
      const history = new Set<string>([show(state)]);
      for (const life of lives) {
        const store = await openStore({ dir, checkpointBytes: 4096, onBackgroundError: () => undefined });
        await store.write((tx) => tx.run(CREATE_TABLE));
        expect(show(await readState(store))).toBe(show(state));
        const ops = makeOps(life.seed, life.count);
        const states = statesOf(state, ops);
        for (const s of states) history.add(show(s));
        const { copy, acked, issued } = await live(store, dir, ops, life);
        await store.close();
        damage(copy, life.damage);
        const reopened = await openStore({ dir: copy, onBackgroundError: () => undefined });
        const got = show(await readState(reopened));
        await reopened.close();
        if (life.damage.kind === 'none') {
          // a write's acknowledgement comes after a sync of every write before it: acknowledged writes
          // cover a prefix of the writes. A checkpoint is not a write and takes no place among them: one
          // issued after a write may take its turn before that write's, and finish before it (its
          // snapshot then lacks the write, which is not acknowledged yet), so only writes count here
          const done = Math.max(-1, ...[...acked].filter((i) => journaled(ops[i]))) + 1;
          for (let i = 0; i < done; i++) if (journaled(ops[i])) expect(acked.has(i), `op ${i} before acked op ${done - 1}`).toBe(true);
          const candidates = states.slice(done, issued + 1).map(show);
          expect(candidates, `after ${acked.size} acks of ${issued} issued: ${JSON.stringify(ops.slice(0, issued))}`).toContain(got);
        } else {
          // a damaged tail drops entries from the end: what is left is still a state the history went through
          expect(history.has(got), got).toBe(true);
        }
        state = new Map(JSON.parse(got) as [string, number][]);
        dir = copy;
      }
    }), { numRuns: fuzzRuns(25) });
    // a guard against a hang, not a bound: 25 histories take 7 s alone, 36-47 s beside the parallel projects
  }, 120_000 * SOAK);
});

describe('journal under SIGKILL (child process)', () => {
  const kills = 8 * SOAK;
  it(`keeps every acknowledged write across ${kills} kills at random points`, async () => {
    const script = await bundle('test/fixtures/hardening-journal-child.ts');
    const dir = tempDir();
    let state: State = new Map();
    let acknowledged = 0;
    for (let k = 0; k < kills; k++) {
      const seed = 1000 + k;
      const ops = makeOps(seed, 5000);
      const child = runChild(script, [dir, String(seed), String(ops.length), '8192']);
      // some kills land while the child is still replaying the journal, most in the middle of writes
      if (k % 4 === 3) await new Promise((r) => setTimeout(r, 60 + ((k * 37) % 120)));
      else {
        const target = 20 + ((k * 7919) % 250);
        await child.line((l) => l === `ack ${target}` || l === 'done');
      }
      await child.kill();
      const acks = child.lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4)));
      acknowledged += acks.length;
      const store = await openStore({ dir });
      const got = show(await readState(store));
      await store.close();
      const done = acks.length === 0 ? 0 : Math.max(...acks) + 1;
      const states = statesOf(state, ops.slice(0, Math.min(ops.length, done + 64)));
      expect(states.slice(done).map(show), `kill ${k}: ${acks.length} acks`).toContain(got);
      state = new Map(JSON.parse(got) as [string, number][]);
    }
    expect(acknowledged).toBeGreaterThan(kills * 20);
  }, 60_000 * SOAK);
});
