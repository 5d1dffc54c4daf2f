import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Child } from './bench/children.js';
import { runRealtime } from './bench/realtime.js';
const dir = await mkdtemp(join(tmpdir(), 'rt-bench-'));
const children = new Set<Child>();
try {
  const r = await runRealtime({ connections: 10, seconds: 2, rounds: 1, warmupSeconds: 0, mainPosts: 1000, smallPosts: 1000, largePosts: 1000, users: 20, profileDir: null, log: (l) => console.log(l) }, dir, children);
  console.log(JSON.stringify({ ...r, attached: r.attached.rps, detached: r.detached.rps }));
} finally { for (const c of children) await c.stop(); await rm(dir, { recursive: true, force: true }); }
