// server/worker-pool.ts, the one pool of worker threads (password hashes, large bodies): its caps, its
// time limit with the worker replaced, and its niced threads, on real threads.
import { spawn } from 'node:child_process';
import { availableParallelism, getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../../server/worker-pool.js';

// answers { ms, nice, thread } after holding its thread `ms` milliseconds
const SOURCE = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', ({ ms }) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {}
  parentPort.postMessage({ ms, nice: require('node:os').getPriority(0), thread: threadId });
});
`;
type Reply = { ms: number; nice: number; thread: number };

// answers after a fixed amount of work (not of time): `n` steps of arithmetic
const WORK = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ n }) => {
  let x = 1;
  for (let i = 0; i < n; i++) x = (x * 31 + i) | 0;
  parentPort.postMessage({ x });
});
`;
const tooMany = () => new Error('too many');

// answers { nice } once its gate (a shared Int32Array, if given) is opened: the test says when a job ends
const GATED = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ gate }) => {
  if (gate) { const flag = new Int32Array(gate); while (Atomics.load(flag, 0) === 0) Atomics.wait(flag, 0, 0, 50); }
  parentPort.postMessage({ nice: require('node:os').getPriority(0) });
});
`;
const gate = () => new SharedArrayBuffer(4);
const open = (g: SharedArrayBuffer) => {
  Atomics.store(new Int32Array(g), 0, 1);
  Atomics.notify(new Int32Array(g), 0);
};

describe('worker pool', () => {
  it('caps the jobs of one client and the jobs waiting; the server itself (client "") only by the queue', async () => {
    const pool = new WorkerPool<{ ms: number }, Reply>({ name: 't', source: SOURCE, size: 1, maxWaiting: 3, maxPerClient: 2, tooMany });
    const a = [pool.run({ ms: 50 }, 'a'), pool.run({ ms: 0 }, 'a')];
    await expect(pool.run({ ms: 0 }, 'a')).rejects.toThrow('too many');
    const others = [pool.run({ ms: 0 }, 'b'), pool.run({ ms: 0 }, '')];
    await expect(pool.run({ ms: 0 }, 'c')).rejects.toThrow('too many'); // three waiting behind the first
    await Promise.all([...a, ...others]);
    // the client's share comes back once its jobs are done
    await expect(pool.run({ ms: 0 }, 'a')).resolves.toMatchObject({ ms: 0 });
  });

  it('stops a job past its time limit, rejects it, and runs the next job on a new worker', async () => {
    const pool = new WorkerPool<{ ms: number }, Reply>({ name: 't', source: SOURCE, size: 1, jobMs: 200, stopped: (ms) => new Error(`stopped after ${ms} ms`) });
    const first = await pool.run({ ms: 0 });
    // counted in the process's CPU time (the job spins on its worker), which a busy machine does not stretch
    const cpu = process.cpuUsage();
    await expect(pool.run({ ms: 5_000 })).rejects.toThrow('stopped after 200 ms');
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(2_000);
    const next = await pool.run({ ms: 0 });
    expect(next.thread).not.toBe(first.thread);
  }, 10_000);

  it.runIf(process.platform === 'linux')("counts a job's limit in its thread's CPU time: a niced job starved by a busy machine is not stopped", async () => {
    // the job's time on this machine as it is, without a limit (its thread warmed up by a first run)
    const n = 10_000_000;
    const free = new WorkerPool<{ n: number }, { x: number }>({ name: 't', source: WORK, size: 1 });
    await free.run({ n });
    let started = performance.now();
    await free.run({ n });
    const jobMs = Math.max(50, Math.ceil(3 * (performance.now() - started)));
    const pool = new WorkerPool<{ n: number }, { x: number }>({ name: 't', source: WORK, size: 1, nice: 19, jobMs, stopped: (ms) => new Error(`stopped after ${ms} ms`) });
    await pool.run({ n });
    // every core held by a busy process at the normal priority: the niced worker gets little of any
    const hogs = Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    try {
      await new Promise((r) => setTimeout(r, 200));
      started = performance.now();
      await expect(pool.run({ n })).resolves.toMatchObject({ x: expect.any(Number) });
      // it did wait past its limit in time (else this proves nothing), and was not stopped for it
      expect(performance.now() - started).toBeGreaterThan(jobMs);
    } finally {
      for (const hog of hogs) hog.kill('SIGKILL');
    }
  }, 30_000);

  it.runIf(process.platform === 'linux')('lowers its threads to the nice asked on Linux, all but `normalWorkers` of them, and only its threads', async () => {
    const low = new WorkerPool<{ ms: number }, Reply>({ name: 't', source: SOURCE, size: 1, nice: 19 });
    const normal = new WorkerPool<{ ms: number }, Reply>({ name: 't', source: SOURCE, size: 1 });
    expect((await low.run({ ms: 0 })).nice).toBe(19);
    expect((await normal.run({ ms: 0 })).nice).not.toBe(19);
    expect(getPriority(0)).not.toBe(19); // this thread kept its own

    // three workers, one kept at the process's priority: three jobs at once get one normal thread and two niced
    const split = new WorkerPool<{ ms: number }, Reply>({ name: 't', source: SOURCE, size: 3, nice: 19, normalWorkers: 1 });
    // (the first job, on the normal worker, ends first: it is not the last worker left idle)
    const three = await Promise.all([0, 100, 100].map((ms) => split.run({ ms })));
    expect(new Set(three.map((r) => r.thread)).size).toBe(3);
    expect(three.map((r) => r.nice === 19).sort()).toEqual([false, true, true]);
    // a job alone goes to the normal worker, however the idle ones were left
    const normalThread = three.find((r) => r.nice !== 19)!.thread;
    for (let i = 0; i < 3; i++) expect(await split.run({ ms: 0 })).toMatchObject({ thread: normalThread });
  });

  it.runIf(process.platform === 'linux')("gives a niced worker a flooding client's next job, not a lone client's waiting ahead of it", async () => {
    const pool = new WorkerPool<{ gate?: SharedArrayBuffer }, { nice: number }>({ name: 't', source: GATED, size: 2, nice: 19, normalWorkers: 1 });
    const [g1, g2, g3] = [gate(), gate(), gate()];
    // A's first job holds the normal worker, its second the niced one; then B's one job waits, then A's third
    const a1 = pool.run({ gate: g1 }, 'A');
    const a2 = pool.run({ gate: g2 }, 'A');
    const b = pool.run({}, 'B');
    const a3 = pool.run({ gate: g3 }, 'A');
    // the niced worker comes free first: it takes A's third job (B's would wait on a starved thread
    // while the normal worker served A), and B's goes to the normal worker when it comes free
    open(g2);
    expect((await a2).nice).toBe(19);
    open(g1);
    expect((await a1).nice).not.toBe(19);
    expect((await b).nice).not.toBe(19);
    open(g3);
    expect((await a3).nice).toBe(19);
  });
});
