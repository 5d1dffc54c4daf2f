// The realtime flusher (server/http/routes/realtime-flush.ts): streams with messages queued are
// written in rounds, one write per stream per round however many messages it got meanwhile; a round
// is cut into slices that let the loop's other work run; the next round waits so the rounds keep to
// their share of the loop while other work wants it, never longer than the cap, and never past the
// oldest waiting message's deadline.
// The upper bounds on a wait are on the time this process's thread ran or slept (workWatch), not on the
// wall clock: on a loaded machine the thread also sits queued for a core (a 10 ms write took 50 to 80 ms
// of wall-clock time at load 13), which is the machine's, not the flusher's.
import { describe, expect, it } from 'vitest';
import { FLUSH_OPTIONS, RealtimeFlusher, type Flushable, type FlushResult } from '../../server/http/routes/realtime-flush.js';
import { workWatch } from '../fixtures/health-poll.js';

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** A stream's side as the flusher sees it: counts its messages and the writes that carried them. */
class Counted implements Flushable {
  waiting = false;
  queued = 0;
  writes: number[] = [];
  /** When each write began (performance.now()). */
  starts: number[] = [];
  /** When each write began on `watch` (what this thread ran or slept since it started), while one is set. */
  worked: number[] = [];
  watch: (() => { worked: number }) | null = null;
  flushes = 0;
  constructor(private readonly costMs = 0) {}
  flush(): FlushResult {
    this.flushes++;
    this.starts.push(performance.now());
    if (this.watch !== null) this.worked.push(this.watch().worked);
    // a socket write's cost, in CPU (what the flusher's slices and shares count)
    const start = process.cpuUsage();
    while (cpuMs(process.cpuUsage(start)) < this.costMs) { /* writing */ }
    this.writes.push(this.queued);
    this.queued = 0;
    return 'written';
  }
  send(flusher: RealtimeFlusher): void {
    this.queued++;
    flusher.mark(this);
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const asleep = new Int32Array(new SharedArrayBuffer(4));

/**
 * Turns of the loop until `check` holds: the loop kept busy (no idle turn for the flusher to use), as
 * under load, each turn's thread asleep for half a millisecond rather than wanting a core, so that
 * workWatch counts the waits the flusher decides (a thread spinning on a loaded machine sits queued
 * through them, and they would go uncounted).
 */
async function until(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > end) throw new Error('timed out');
    Atomics.wait(asleep, 0, 0, 0.5);
    await turn();
  }
}

describe('the realtime flusher', () => {
  it('writes each stream once for every message queued before its round, and nothing before a later turn', async () => {
    const flusher = new RealtimeFlusher();
    const streams = Array.from({ length: 3 }, () => new Counted());
    for (let i = 0; i < 5; i++) for (const s of streams) s.send(flusher);
    expect(streams.map((s) => s.writes)).toEqual([[], [], []]); // nothing synchronously: the fan-out's turn is not extended
    await until(() => streams.every((s) => s.writes.length === 1));
    expect(streams.map((s) => s.writes)).toEqual([[5], [5], [5]]);
  });

  it('a round longer than a slice lets other work run between its slices', async () => {
    const flusher = new RealtimeFlusher({ sliceMs: 4, share: 0.5, maxWaitMs: 40, deliveryMs: 1000, deadlineShare: 0.5 });
    const streams = Array.from({ length: 64 }, () => new Counted(0.5)); // 32 ms of writes
    for (const s of streams) s.send(flusher);
    let turns = 0;
    let done = false;
    const other = async () => { while (!done) { turns++; await turn(); } };
    const running = other();
    await until(() => streams.every((s) => s.writes.length === 1));
    done = true;
    await running;
    expect(turns).toBeGreaterThanOrEqual(4); // at least one turn of other work per slice
  });

  it('a slice counts the CPU it takes: a process kept off its core still writes a slice\'s worth before yielding', async () => {
    const flusher = new RealtimeFlusher({ sliceMs: 4, share: 0.5, maxWaitMs: 40, deliveryMs: 1000, deadlineShare: 0.5 });
    // each write held a quarter of a millisecond without using the CPU, as a descheduled process: 64 ms
    // of time, almost no CPU
    const blocked = new Int32Array(new SharedArrayBuffer(4));
    const streams = Array.from({ length: 256 }, () => {
      const s = new Counted();
      const flush = s.flush.bind(s);
      s.flush = () => {
        Atomics.wait(blocked, 0, 0, 0.25);
        return flush();
      };
      return s;
    });
    for (const s of streams) s.send(flusher);
    let turns = 0;
    let done = false;
    const t0 = performance.now();
    const other = async () => { while (!done) { turns++; await turn(); } };
    const running = other();
    await until(() => streams.every((s) => s.writes.length === 1), 5000);
    const elapsed = performance.now() - t0;
    done = true;
    await running;
    // slices of 4 ms of time would have yielded at every look (every 16 streams: 16 slices); counted in
    // CPU, a slice stops at the wall clock's backstop (16 ms): about 4 slices of the 64 ms, one a 16 ms
    // at most however long the waits took (on a loaded machine a quarter-millisecond wait lasts longer,
    // and 16 of them can pass the backstop at every look: 9 slices of 150 ms were seen at load 13)
    expect(turns).toBeLessThanOrEqual(Math.floor(elapsed / 16) + 3);
    expect(turns).toBeGreaterThanOrEqual(2); // the backstop still yields
  });

  it('the next round waits for the rounds\' share of the loop, and at most maxWaitMs', async () => {
    const options = { sliceMs: 50, share: 0.25, maxWaitMs: 40, deliveryMs: 1000, deadlineShare: 0.5 };
    const flusher = new RealtimeFlusher(options);
    const slow = new Counted(6); // a 6 ms round: the next waits 18 ms (6 × (1 / 0.25 - 1))
    slow.send(flusher);
    await until(() => slow.writes.length === 1);
    const firstDone = performance.now();
    slow.send(flusher);
    slow.send(flusher);
    await until(() => slow.writes.length === 2);
    const waited = performance.now() - firstDone;
    expect(slow.writes).toEqual([1, 2]); // the two messages of the wait went in one write
    expect(waited).toBeGreaterThanOrEqual(6 * 3 - 1);
    // a round far longer than the cap: the next is not held past maxWaitMs
    const costly = new RealtimeFlusher(options);
    const heavy = new Counted(30); // would mean 90 ms
    heavy.send(costly);
    await until(() => heavy.writes.length === 1);
    const took = workWatch(process.pid);
    heavy.send(costly);
    await until(() => heavy.writes.length === 2);
    expect(took().worked).toBeLessThan(options.maxWaitMs + 30 + 50); // the cap, the round itself, slack
    // nor by the deadline's floor: at a deadline share of a quarter a 30 ms round would hold the next 90 ms
    const floored = new RealtimeFlusher({ ...options, deadlineShare: 0.25 });
    const heavier = new Counted(30);
    heavier.send(floored);
    await until(() => heavier.writes.length === 1);
    heavier.watch = workWatch(process.pid);
    heavier.send(floored);
    await until(() => heavier.writes.length === 2);
    // from the first round's end to the second's start: the cap (40) with 35 ms of slack; held by the
    // floor it would be 90 at least
    expect(heavier.worked[0]).toBeLessThan(options.maxWaitMs + 35);
  });

  it('a round\'s wait is for the loop\'s other work: after the loop sat idle, the next round starts at once', async () => {
    const options = { sliceMs: 50, share: 0.1, maxWaitMs: 100, deliveryMs: 1000, deadlineShare: 0.5 };
    const flusher = new RealtimeFlusher(options);
    const s = new Counted(10); // a 10 ms round: the next would wait 90 ms while the loop is busy
    s.send(flusher);
    await until(() => s.writes.length === 1);
    await sleep(20); // the loop has nothing to do meanwhile (the share would still hold the next round 70 ms)
    const took = workWatch(process.pid);
    s.send(flusher);
    await new Promise<void>((resolve) => {
      const check = () => (s.writes.length === 2 ? resolve() : setTimeout(check, 1));
      check();
    });
    expect(took().worked).toBeLessThan(10 + 40); // its own 10 ms and slack, not 80 ms
  });

  it('under a long wait the oldest waiting message is written by its deadline, the messages before it in the same write', async () => {
    // a 10 ms round at a share of 5%: the next would wait 190 ms while the loop is busy
    const options = { sliceMs: 50, share: 0.05, maxWaitMs: 500, deliveryMs: 40, deadlineShare: 0.5 };
    const flusher = new RealtimeFlusher(options);
    const s = new Counted(10);
    s.send(flusher);
    await until(() => s.writes.length === 1); // the loop kept busy (turn after turn), as under load
    const t0 = performance.now();
    const took = workWatch(process.pid);
    s.send(flusher);
    await until(() => performance.now() - t0 >= 5);
    s.send(flusher);
    await until(() => s.writes.length === 2, 5000);
    const waited = performance.now() - t0;
    expect(s.writes).toEqual([1, 2]); // both messages of the wait in one write
    // started by the deadline (40 ms less the last round's 10, then its own 10), not after 190 ms, and
    // not at once either: the loop was busy, the wait was kept until the deadline
    expect(waited).toBeGreaterThanOrEqual(25);
    expect(took().worked).toBeLessThan(150);
  });

  it('the deadline counts from the message\'s commit reaching the fan-out: one it was late to queue is written sooner', async () => {
    // a 10 ms round at a share of 5% (the next would wait 190 ms while the loop is busy), a deadline of
    // 100 ms; the message's change was committed 90 ms before the fan-out queued it: due at once (its
    // 90 ms, the last round's 10), not 90 ms after its queuing
    const options = { sliceMs: 50, share: 0.05, maxWaitMs: 500, deliveryMs: 100, deadlineShare: 0.5 };
    const flusher = new RealtimeFlusher(options);
    const s = new Counted(10);
    s.send(flusher);
    await until(() => s.writes.length === 1);
    const done = performance.now();
    await until(() => performance.now() - done >= 15); // the deadline share's floor (10 ms) passes, the loop kept busy
    const t0 = performance.now();
    s.watch = workWatch(process.pid);
    s.queued++;
    flusher.mark(s, t0 - 90);
    await until(() => s.writes.length === 2, 5000);
    expect(s.worked[0]).toBeLessThan(45);
    expect(s.writes).toEqual([1, 1]);
  });

  it('a deadline that cannot be met does not run rounds back to back: they keep to deadlineShare of the loop', async () => {
    // every message is already late (deliveryMs 1); a 10 ms round at a deadline share of a quarter
    // leaves the loop 30 ms before the next
    const options = { sliceMs: 50, share: 0.05, maxWaitMs: 500, deliveryMs: 1, deadlineShare: 0.25 };
    const flusher = new RealtimeFlusher(options);
    const s = new Counted(10);
    s.send(flusher);
    await until(() => s.writes.length === 1);
    const t0 = performance.now();
    const took = workWatch(process.pid);
    s.send(flusher);
    await until(() => s.writes.length === 2, 5000);
    const waited = performance.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(30 + 10 - 2); // the wait, then its own 10 ms
    expect(took().worked).toBeLessThan(190); // and still the deadline's, not the share's 190 ms wait
  });

  it('a stream given more while it is written (a group handed over to it) is not queued for another round', async () => {
    const flusher = new RealtimeFlusher(FLUSH_OPTIONS);
    // as realtime-streams.ts: the stream's own write takes its group's run, which queues it (mark)
    const s = new Counted();
    const flush = s.flush.bind(s);
    s.flush = () => {
      flusher.mark(s);
      return flush();
    };
    s.send(flusher);
    await until(() => s.writes.length === 1);
    await sleep(FLUSH_OPTIONS.maxWaitMs + 20);
    expect(s.flushes).toBe(1); // no second round with nothing to write
    s.send(flusher); // and the next message still gets its round
    await until(() => s.writes.length === 2);
    expect(s.writes).toEqual([1, 1]);
  });

  it('while writes are rare a message goes out within a turn or two', async () => {
    const flusher = new RealtimeFlusher(FLUSH_OPTIONS);
    const s = new Counted();
    s.send(flusher);
    await until(() => s.writes.length === 1);
    await sleep(FLUSH_OPTIONS.maxWaitMs + 10); // the round's wait has passed
    s.send(flusher);
    let turns = 0;
    while (s.writes.length < 2 && turns < 100) {
      turns++;
      await turn();
    }
    expect(s.writes).toEqual([1, 1]);
    expect(turns).toBeLessThanOrEqual(2); // the next turn's check phase, not a timer
  });
});
