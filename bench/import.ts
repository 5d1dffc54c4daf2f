// The bench's records-import phase: N posts (100,000 by default) as NDJSON through
// POST /api/collections/posts/records/import into a server in its own process, while /api/health is
// asked every 10 ms on another connection: the import's wall time, its journal syncs, and how long
// other requests waited meanwhile.
//
//   npx tsx bench/import.ts [--rows 100000]   (also phase 3 of npm run bench)
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnChild, stop, tearDown, type Child } from './children.js';
import { postContent, prng } from './data.js';
import type { SeedInfo } from './protocol.js';
import { ADMIN } from './seed.js';

export interface ImportFigures {
  rows: number;
  bodyBytes: number;
  importMs: number;
  rowsPerSecond: number;
  /** Journal syncs the import caused (one: one transaction). */
  syncs: number;
  health: { samples: number; resets: number; p50Ms: number; p99Ms: number; maxMs: number };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/**
 * Health answers' waits while `done()` is false. A keep-alive connection the server closes as its
 * idle timer fires after a long stall can reset under a request sent just then (undici); that request
 * is counted and sent again, its wait included.
 */
async function healthWhile(url: string, done: () => boolean, resets: { n: number }): Promise<number[]> {
  const waits: number[] = [];
  while (!done()) {
    const t0 = performance.now();
    for (;;) {
      try {
        await fetch(`${url}/api/health`).then((r) => r.arrayBuffer());
        break;
      } catch {
        resets.n++;
      }
    }
    waits.push(performance.now() - t0);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return waits;
}

export async function runImportBench(rows: number, dir: string, children: Set<Child>, log: (line: string) => void): Promise<ImportFigures> {
  const child = spawnChild(null);
  children.add(child);
  try {
    const seeded = await child.call<SeedInfo>({ op: 'seed', dir: join(dir, 'import'), posts: 0, users: 20 }, 300_000);
    const auth = await fetch(`${seeded.url}/api/collections/_superusers/auth-with-password`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: ADMIN.email, password: ADMIN.password }),
    });
    const { token } = (await auth.json()) as { token: string };
    const rand = prng(7);
    const lines: string[] = [];
    for (let i = 0; i < rows; i++) lines.push(JSON.stringify({ ...postContent(rand), author: seeded.userIds[i % seeded.userIds.length] }));
    const body = `${lines.join('\n')}\n`;
    log(`importing ${rows.toLocaleString('en')} posts (${(body.length / 2 ** 20).toFixed(1)} MiB of NDJSON)`);
    const before = await child.call<{ syncs: number }>({ op: 'stats' });
    let finished = false;
    const resets = { n: 0 };
    const health = healthWhile(seeded.url, () => finished, resets);
    const t0 = performance.now();
    const res = await fetch(`${seeded.url}/api/collections/posts/records/import?format=ndjson`, {
      method: 'POST', headers: { authorization: token, 'content-type': 'application/x-ndjson' }, body,
    });
    const text = await res.text();
    const importMs = performance.now() - t0;
    finished = true;
    const waits = (await health).sort((a, b) => a - b);
    if (!res.ok) throw new Error(`import failed: ${res.status} ${text.slice(0, 300)}`);
    const after = await child.call<{ syncs: number }>({ op: 'stats' });
    const mem = await child.call<{ rssBytes: number }>({ op: 'memory' });
    log(`server RSS after the import: ${(mem.rssBytes / 2 ** 20).toFixed(0)} MiB`);
    return {
      rows, bodyBytes: body.length, importMs, rowsPerSecond: rows / (importMs / 1000), syncs: after.syncs - before.syncs,
      health: { samples: waits.length, resets: resets.n, p50Ms: quantile(waits, 0.5), p99Ms: quantile(waits, 0.99), maxMs: waits[waits.length - 1] ?? 0 },
    };
  } finally {
    await stop(children, child);
  }
}

export function importTable(f: ImportFigures): string[] {
  return [
    `Records import (NDJSON, one request, one transaction): ${f.rows.toLocaleString('en')} posts in ${(f.importMs / 1000).toFixed(1)} s ` +
      `(${Math.round(f.rowsPerSecond).toLocaleString('en')} rows/s), ${f.syncs} journal sync(s)`,
    `  /api/health meanwhile (every 10 ms, ${f.health.samples} answers, ${f.health.resets} reset connections retried): p50 ${f.health.p50Ms.toFixed(1)} ms, p99 ${f.health.p99Ms.toFixed(0)} ms, max ${f.health.maxMs.toFixed(0)} ms`,
  ];
}

if (/bench\/import\.ts$/.test(process.argv[1] ?? '')) {
  const { values } = parseArgs({ options: { rows: { type: 'string' } } });
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-bench-import-'));
  const children = new Set<Child>();
  try {
    console.log(importTable(await runImportBench(Number(values.rows ?? 100_000), dir, children, (l) => console.log(`  ${l}`))).join('\n'));
  } finally {
    await tearDown(children, dir);
  }
}
