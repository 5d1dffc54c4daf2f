// Moving a desktop up, measured: a desktop data folder of N posts (the bench's schema and seed) moved
// by `npm run move-up` (its own process, as a user runs it) into an empty database of a PostgreSQL
// cluster started here (durable settings); for each N, the time and the mover's peak RSS (VmHWM), so
// that memory that grew with the records (a folder loaded at once) would show; beside it, the peak of a
// dry run, which opens the folder (the desktop engine holds its database in memory) and copies nothing. The cluster and the
// folders are removed at the end.
//
//   npx tsx bench/move-up.ts [--posts 10000,100000]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { tearDown } from './children.js';
import { createDatabase, findPostgresBin, POSTGRES_MISSING, startCluster } from '../scripts/postgres-cluster.js';
import { startServer } from '../server/index.js';
import { seed } from './seed.js';

const { values } = parseArgs({ options: { posts: { type: 'string' } } });
const SIZES = (values.posts ?? '10000,100000').split(',').map(Number);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Runs the command; answers its wall time and the largest VmHWM read while it ran (Linux). */
function mover(args: string[]): Promise<{ seconds: number; peakMb: number; out: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/move-up.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    let peak = 0;
    const timer = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]));
      } catch {
        // gone
      }
    }, 50);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      if (code !== 0) reject(new Error(`move-up exited ${code}: ${out}`));
      else resolve({ seconds: (performance.now() - started) / 1000, peakMb: peak / 1024, out });
    });
  });
}

async function main(): Promise<void> {
  const bin = findPostgresBin();
  if (bin === '') return console.log(`skipped: ${POSTGRES_MISSING}`);
  const cluster = await startCluster(bin, { settings: ['max_connections=50', 'shared_buffers=128MB'] });
  const work = await mkdtemp(join(tmpdir(), 'deskbase-bench-moveup-'));
  try {
    console.log('| posts in the desktop folder | move-up, wall time | records/s | mover peak RSS | peak RSS of a dry run (opens the folder, copies nothing) |');
    console.log('|--:|--:|--:|--:|--:|');
    for (const posts of SIZES) {
      const dir = join(work, `desktop-${posts}`);
      const server = await startServer({ dir, port: 0, uiDir: null, log: () => undefined });
      await seed(server, posts, 100);
      await server.close();
      const url = await createDatabase(cluster.info, `moveup_${posts}`);
      const dry = await mover(['--dir', dir, '--db', url, '--dry-run']);
      const run = await mover(['--dir', dir, '--db', url, '--yes']);
      console.log(`| ${posts.toLocaleString('en')} | ${run.seconds.toFixed(1)} s | ${Math.round((posts + 100) / run.seconds).toLocaleString('en')} | ${run.peakMb.toFixed(0)} MB | ${dry.peakMb.toFixed(0)} MB |`);
    }
  } finally {
    await tearDown([cluster], work);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
