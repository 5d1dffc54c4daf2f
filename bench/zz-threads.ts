import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpCases, type CaseId } from './cases.js';
import { spawnChild } from './children.js';
import { runLoad } from './load.js';
import type { SeedInfo } from './protocol.js';
type T = { main: { user: number; system: number }; others: { user: number; system: number } };
async function main() {
  const id = (process.argv[2] ?? 'view') as CaseId;
  const dir = await mkdtemp(join(tmpdir(), 'r3-threads-'));
  const child = spawnChild(null);
  const info = await child.call<SeedInfo>({ op: 'seed', dir: join(dir, 'data'), posts: 10000, users: 100 }, 300000);
  const c = httpCases(info)[id];
  const run = (seconds: number) => runLoad({ url: info.url, method: c.method, paths: c.paths, methods: c.methods, bodies: c.bodies, headers: c.headers, computed: c.computed, connections: 10, seconds });
  await run(2);
  for (let r = 0; r < 3; r++) {
    const a = await child.call<T>({ op: 'threadCpu' });
    const res = await run(4);
    const b = await child.call<T>({ op: 'threadCpu' });
    const n = res.ok;
    const d = (x: 'main' | 'others', k: 'user' | 'system') => (b[x][k] - a[x][k]);
    console.log(`n=${n} main user ${(d('main','user')/n).toFixed(1)} sys ${(d('main','system')/n).toFixed(1)} | others user ${(d('others','user')/n).toFixed(1)} sys ${(d('others','system')/n).toFixed(1)} µs/req`);
  }
  await child.stop();
}
main();
