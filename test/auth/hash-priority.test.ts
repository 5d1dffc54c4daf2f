// The password workers' priority (core/scrypt-pool.ts over worker-pool.ts's `nice` and `normalWorkers`):
// a flood of hashes leaves the event loop a core of its own (at most cores - 1 hashing threads at the
// process's priority, the rest at nice 19), and a sign-in on a machine whose every core is held by busy
// processes gets a fair share of a core for its hash (at nice 19 it got 1.4% of one: 1-7 s a sign-in).
// Both read the threads' own figures (Linux's /proc/self/task), not the wall clock.
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, getPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saturateCores, type Busy } from '../../bench/busy.js';
import { ScryptPool } from '../../server/core/scrypt-pool.js';
import type { RunningServer } from '../../server/index.js';
import { http, liveServer } from '../fixtures/hardening-http.js';

interface Thread { ran: number; queued: number; nice: number }

/** `stat` and `schedstat` of a task (a thread of this process, or a process): ms run, ms runnable without a CPU, its nice. */
function task(path: string): Thread {
  const [ran, queued] = readFileSync(`${path}/schedstat`, 'latin1').split(' ').map(Number);
  const stat = readFileSync(`${path}/stat`, 'latin1');
  // the fields after the command's closing parenthesis start at the state (field 3); the nice is field 19
  const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  return { ran: ran / 1e6, queued: queued / 1e6, nice };
}

/** This process's threads by id. */
function threads(): Map<number, Thread> {
  const out = new Map<number, Thread>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      out.set(Number(tid), task(`/proc/self/task/${tid}`));
    } catch {
      // a thread that ended meanwhile
    }
  }
  return out;
}

/** What each thread ran and waited between two readings (threads started since count from zero). */
function since(before: Map<number, Thread>, after: Map<number, Thread>): Map<number, Thread> {
  const out = new Map<number, Thread>();
  for (const [tid, t] of after) {
    const b = before.get(tid) ?? { ran: 0, queued: 0 };
    out.set(tid, { ran: t.ran - b.ran, queued: t.queued - b.queued, nice: t.nice });
  }
  return out;
}

// the parameters passwords.ts hashes with
const PARAMS = { N: 16384, r: 8, p: 1, maxmem: 256 * 16384 * 8 + 1024 * 1024 };

describe.runIf(process.platform === 'linux')("the password workers' priority", () => {
  it('a flood of hashes runs on at most cores - 1 threads at the normal priority, the rest niced: the event loop keeps a core', async () => {
    const pool = new ScryptPool();
    const salt = Buffer.alloc(16, 7);
    await pool.derive('warm', salt, 64, PARAMS);
    const cpu = process.cpuUsage();
    await pool.derive('one', salt, 64, PARAMS);
    const used = process.cpuUsage(cpu);
    const hashMs = (used.user + used.system) / 1000;

    const before = threads();
    await Promise.all(Array.from({ length: 12 * availableParallelism() }, (_, i) => pool.derive(`pw${i}`, salt, 64, PARAMS)));
    const ran = since(before, threads());
    // the threads that hashed: each worker got a job at once and ran at least that one (a niced one on a
    // busy machine little more); this thread only handed the jobs out
    const hashing = [...ran].filter(([tid, t]) => tid !== process.pid && t.ran >= hashMs / 2).map(([, t]) => t);
    const size = Math.min(4, availableParallelism());
    expect(hashing.length).toBe(size);
    const normal = hashing.filter((t) => t.nice === getPriority(0));
    expect(normal.length).toBe(Math.min(size, availableParallelism() - 1));
    expect(hashing.filter((t) => t.nice === 19).length).toBe(size - normal.length);
  }, 60_000);

  describe('while every core is held by a busy process at the normal priority', () => {
    let server: RunningServer;
    let busy: Busy | undefined;
    beforeAll(async () => {
      ({ server } = await liveServer());
      const r = await http(server.url, 'POST', '/api/collections/users/records', { body: { email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' } });
      expect(r.status, r.text).toBe(200);
    });
    afterAll(async () => {
      busy?.stop();
      await server.close();
    });

    const signIn = () => http(server.url, 'POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: 'password123' } });

    it("a sign-in is answered, its hash waiting for a CPU about as long per ms as the busy processes do", async () => {
      expect((await signIn()).status).toBe(200); // the worker started
      busy = await saturateCores(60_000, 1);
      const hogsBefore = busy.pids.map((pid) => task(`/proc/${pid}`));
      let hashRan = 0;
      let hashQueued = 0;
      for (let i = 0; i < 5; i++) {
        const before = threads();
        const answer = await signIn();
        expect(answer.status, answer.text).toBe(200);
        // the sign-in's hash ran on the thread (other than this one) that ran the most meanwhile
        const [hash] = [...since(before, threads())].filter(([tid]) => tid !== process.pid).map(([, t]) => t).sort((a, b) => b.ran - a.ran);
        hashRan += hash.ran;
        hashQueued += hash.queued;
      }
      const hogs = busy.pids.map((pid) => task(`/proc/${pid}`)).map((t, i) => ({ ran: t.ran - hogsBefore[i].ran, queued: t.queued - hogsBefore[i].queued }));
      busy.stop();
      const hogWait = hogs.reduce((s, h) => s + h.queued, 0) / hogs.reduce((s, h) => s + h.ran, 0);
      const hashWait = hashQueued / hashRan;
      console.log(`saturated sign-ins: the hash waited ${hashWait.toFixed(2)} ms per ms run, the busy processes ${hogWait.toFixed(2)}`);
      // a fair share waits about as long as the busy processes (1-2 times on two cores); a niced hash
      // (nice 19 against nice 0: weight 15 against 1024) waited about seventy times as long
      expect(hashWait).toBeLessThan(4 * hogWait + 1);
    }, 60_000);
  });
});
