// The password workers' priority, measured (docs/architecture.md, "Decisions": the hash workers'
// priority). For each candidate, a server in a process of its own is asked:
//  - sign-ins one after another while a busy process per core (`node -e 'for(;;);'`, nice 0) holds the
//    machine: each one's wall-clock time;
//  - a flood of sign-ins (FLOOD addresses, one sign-in in flight each) on the machine as it is, and again
//    with the busy processes: /api/health's wall-clock time, polled meanwhile, and how long the server's
//    main thread sat runnable without a CPU per ms it ran (Linux's schedstat).
// Rounds interleave the candidates, so a noisy machine spreads over all of them alike.
//   npx tsx bench/hash-priority.ts [rounds] [candidates, comma-separated: 19,10,5,0,split]
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, get, request } from 'node:http';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

interface Candidate { label: string; nice: number; normalWorkers: number }
const CANDIDATES: Record<string, Candidate> = {
  19: { label: 'nice 19 (all)', nice: 19, normalWorkers: 0 },
  10: { label: 'nice 10 (all)', nice: 10, normalWorkers: 0 },
  5: { label: 'nice 5 (all)', nice: 5, normalWorkers: 0 },
  0: { label: 'nice 0 (bounds only)', nice: 0, normalWorkers: 0 },
  split: { label: `${Math.max(0, availableParallelism() - 1)} at nice 0, rest 19`, nice: 19, normalWorkers: Math.max(0, availableParallelism() - 1) },
};
const FLOOD = 16;
const FLOOD_MS = 8_000;
const SERIAL = 6;

function post(url: string, path: string, body: unknown, from = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', localAddress: from, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const signIn = (url: string, identity: string, password: string, from?: string) =>
  post(url, '/api/collections/users/auth-with-password', { identity, password }, from);

function schedstat(pid: number): { ran: number; queued: number } {
  const [ran, queued] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'latin1').split(' ').map(Number);
  return { ran: ran / 1e6, queued: queued / 1e6 };
}

function hogs(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'const end = Date.now() + 120000; while (Date.now() < end);'], { stdio: 'ignore' }));
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** FLOOD_MS of sign-ins from FLOOD addresses while /api/health is polled. */
async function flood(url: string, pid: number): Promise<{ health: number[]; signIns: number; waitPerMs: number }> {
  let running = true;
  let signIns = 0;
  let n = 0;
  const loops = Array.from({ length: FLOOD }, async (_, i) => {
    while (running) {
      await signIn(url, `nobody${n++}@example.com`, 'wrong password', `127.0.1.${i + 2}`);
      if (running) signIns++;
    }
  });
  await new Promise((r) => setTimeout(r, 300));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const health: number[] = [];
  const s0 = schedstat(pid);
  const end = performance.now() + FLOOD_MS;
  const signIns0 = signIns;
  while (performance.now() < end) {
    const t0 = performance.now();
    await new Promise<void>((done, fail) => get(`${url}/api/health`, { agent }, (res) => { res.resume(); res.on('end', done); }).on('error', fail));
    health.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  const s1 = schedstat(pid);
  const made = signIns - signIns0;
  running = false;
  await Promise.all(loops);
  agent.destroy();
  return { health, signIns: made / (FLOOD_MS / 1000), waitPerMs: (s1.queued - s0.queued) / (s1.ran - s0.ran) };
}

async function measure(c: Candidate) {
  const self = fileURLToPath(import.meta.url);
  const child = fork(self, ['server', JSON.stringify(c)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { url, pid } = await new Promise<{ url: string; pid: number }>((r) => child.once('message', (m) => r(m as { url: string; pid: number })));
  try {
    const created = await post(url, '/api/collections/users/records', { email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' });
    if (created !== 200) throw new Error(`sign-up: ${created}`);
    for (let i = 0; i < 4; i++) await signIn(url, 'ann@example.com', 'password123'); // workers started and warm
    const idleFlood = await flood(url, pid);
    const busy = hogs();
    try {
      await new Promise((r) => setTimeout(r, 300));
      const serial: number[] = [];
      for (let i = 0; i < SERIAL; i++) {
        const t0 = performance.now();
        const status = await signIn(url, 'ann@example.com', 'password123');
        if (status !== 200) throw new Error(`sign-in: ${status}`);
        serial.push(performance.now() - t0);
      }
      const busyFlood = await flood(url, pid);
      return { serial, idleFlood, busyFlood };
    } finally {
      for (const h of busy) h.kill('SIGKILL');
    }
  } finally {
    child.disconnect();
    await new Promise((r) => child.once('exit', r));
  }
}

async function main() {
  const rounds = Number(process.argv[2] ?? 3);
  const picked = (process.argv[3] ?? '19,10,5,0,split').split(',').map((k) => CANDIDATES[k]);
  const f = (x: number) => x.toFixed(0);
  for (let round = 1; round <= rounds; round++) {
    for (const c of picked) {
      const { serial, idleFlood, busyFlood } = await measure(c);
      const fl = (r: typeof idleFlood) => `health p50 ${f(pct(r.health, 50))} p90 ${f(pct(r.health, 90))} p99 ${f(pct(r.health, 99))} max ${f(Math.max(...r.health))} ms, loop waits ${r.waitPerMs.toFixed(2)} ms/ms, ${r.signIns.toFixed(0)} sign-ins/s`;
      console.log(`round ${round} | ${c.label.padEnd(22)} | saturated sign-in p50 ${f(pct(serial, 50))} max ${f(Math.max(...serial))} ms | flood: ${fl(idleFlood)} | flood saturated: ${fl(busyFlood)}`);
    }
  }
}

if (process.argv[2] === 'server') {
  const { startServer } = await import('../server/index.js');
  const { ScryptPool } = await import('../server/core/scrypt-pool.js');
  const c = JSON.parse(process.argv[3]) as Candidate;
  const server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, hashPool: new ScryptPool({ nice: c.nice, normalWorkers: c.normalWorkers }) });
  process.send?.({ url: server.url, pid: process.pid });
  process.on('disconnect', () => void server.close().then(() => process.exit(0)));
} else {
  await main();
}
