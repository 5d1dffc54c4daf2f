// What one request's log costs the server's process, from the HTTP layer's call (answers.ts
// logAnswered) to its row in the log database, measured by the process's CPU clock with requests
// arriving as a server sees them (a few logs, then a turn of the event loop; the queue holds them all:
// they arrive faster than a server answers), and the request-path
// part (logAnswered alone) apart from the batch part. Every log must be written: a dropped one fails it.
//
//   npx tsx bench/log-cost.ts [--n 40000] [--rounds 3] [--prof out.cpuprofile]
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { tearDown } from './children.js';
import { openStore } from '../server/store/db.js';
import { openLogs } from '../server/logs/index.js';
import { logAnswered } from '../server/http/answers.js';
import { printFunctions } from './cpuprofile.js';
import { WindowProfiler } from './inspector-profile.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { n: { type: 'string' }, rounds: { type: 'string' }, prof: { type: 'string' } } });
  const n = Number(values.n ?? 40_000);
  const rounds = Number(values.rounds ?? 3);
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-log-cost-'));
  const data = await openStore({ dir: null });
  const logs = await openLogs({ store: data, dir, settings: async () => ({ maxDays: 5, minLevel: 0, logIP: true, logAuthId: false }), report: (e) => console.error(e), capacity: n + 1 });
  const profiler = values.prof === undefined ? null : new WindowProfiler();
  const fact = (i: number) => ({
    method: 'GET', path: `/api/collections/posts/records/${String(i).padStart(15, 'a')}`, search: '', status: 200, t0: performance.now(), auth: null,
    userAgent: 'autocannon/7', referer: '', ip: '127.0.0.1', remoteIp: '127.0.0.1',
  });
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  try {
    for (let r = 0; r <= rounds; r++) {
      const warm = r === 0;
      const dropped = logs.logger.dropped;
      const written = logs.logger.written;
      if (!warm) await profiler?.start(100);
      let path = 0;
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const p0 = process.cpuUsage();
        logAnswered(logs, fact(i), undefined);
        const p = process.cpuUsage(p0);
        path += p.user + p.system;
        if (i % 10 === 9) await turn();
      }
      await logs.logger.flush();
      const c = process.cpuUsage(c0);
      if (!warm && profiler !== null) await profiler.stop(values.prof!);
      if (logs.logger.dropped !== dropped || logs.logger.written - written !== n) throw new Error(`logs lost: ${logs.logger.dropped - dropped} dropped, ${logs.logger.written - written} of ${n} written`);
      if (!warm) console.log(`${((c.user + c.system) / n).toFixed(2).padStart(7)} µs CPU per request log (of which ~${(path / n).toFixed(2)} µs on the request's path, timer included)`);
    }
  } finally {
    await tearDown([logs, data], dir);
  }
  if (values.prof !== undefined) await printFunctions(values.prof, 35);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
