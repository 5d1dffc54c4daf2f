// `npm run bench`: Deskbase side by side with a bare node:http ceiling on this machine, then scale
// figures; prints one table and writes bench/results/<time>.json. Not part of `npm test`.
//
//   npm run bench [-- --seconds 5 --warmup 1 --quick --profile DIR]
//
// --quick: 1-second cases on 1k/2k/10k posts (a smoke run). --profile DIR: servers run under
// `node --cpu-prof` and write their .cpuprofile files to DIR.
import { cpus, tmpdir, totalmem } from 'node:os';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { tearDown, type Child } from './children.js';
import { runMain, type Settings } from './phases.js';
import { runScale } from './scale.js';
import { importTable, runImportBench } from './import.js';
import { runStretchBench, stretchTable } from './stretch.js';
import { realtimeTable, runRealtime } from './realtime.js';
import { runTeam, teamTable } from './team.js';
import { hooksTable, runHooksBench } from './hooks.js';
import { runUiBench, uiTable } from './ui.js';
import { mainTable, saturatedTable, scaleTable, targets, targetTable, type BenchResults } from './report.js';

/** The whole run is bounded: past this, the children are killed and the bench fails. */
// the long-operations section (stretch.ts) and attaching 10,000 subscribers (realtime.ts) take minutes each
const WATCHDOG_MS = 20 * 60 * 1000;

function settingsFromArgs(): Settings {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      quick: { type: 'boolean', default: false },
      profile: { type: 'string' },
    },
  });
  const quick = values.quick === true;
  const seconds = Number(values.seconds ?? (quick ? 1 : 5));
  const warmupSeconds = Number(values.warmup ?? 1);
  if (!(seconds > 0 && seconds <= 30) || !(warmupSeconds >= 0 && warmupSeconds <= 10)) {
    throw new Error('--seconds must be in (0, 30] and --warmup in [0, 10]');
  }
  return {
    connections: 10,
    seconds,
    rounds: quick ? 1 : 5,
    warmupSeconds,
    mainPosts: quick ? 2_000 : 10_000,
    smallPosts: 1_000,
    largePosts: quick ? 10_000 : 100_000,
    users: 100,
    profileDir: values.profile ? resolve(values.profile) : null,
    log: (line) => console.log(`  ${line}`),
  };
}

const METHOD = [
  'Method: each server runs in its own child process (Deskbase: startServer() on a temporary data folder,',
  'journal synced with fdatasync before each answer; ceiling: a bare node:http server replaying the JSON',
  'bodies and headers Deskbase gave for the same requests). autocannon runs in the parent process,',
  '10 keep-alive connections, 1 s warm-up each, then Deskbase and the ceiling alternate in 5 slices',
  '(pooled), so background load weighs on both alike; the servers and autocannon share the cores.',
  'Latencies: per response, in ms. CPU µs/req: the server process\'s CPU time (all threads) per 2xx answer.',
  'The floor: a bare node:http server computing the computed view and list answers on sql.js from the same',
  'checkpointed database (one prepared statement each, rows to JSON; no rules, sessions or request log),',
  'alternating with the ceiling as Deskbase does: what a computed read on sql.js reaches at best.',
  'The list with and without expand=author also alternate with each other on the same server (their ratio).',
  'Sign-in under load: sign-ins and views, 10 connections each, at once.',
  'Saturated: view, list and the ~ filter list on the same server, 10 connections, first as the machine is,',
  'then with four busy processes per core (the server gets about a fifth of a core); non-2xx are counted.',
  'Scale: the small and the large data set alternate; list latencies on 1 connection for at most 3 s each.',
  'Realtime: 1,000 guests subscribed to posts/* over SSE from a process of their own (bench/subscribers.ts:',
  'raw sockets, every byte read into one shared buffer, events counted by their marker, the only string work',
  'the record\'s created, once per event); the subscribers stand in for other machines, so the server runs',
  'pinned to a core of its own and the subscriber process and the load generator to the others (taskset, in',
  'the attached and the detached slices alike, the idle subscribers and the batch unpinned; unpinned, and said so, where taskset or a second core is',
  'missing). Delivery = create sent to the last subscriber holding the event, one create at a time; the',
  'create rate with them attached and with none alternates (with the CPU the server, the subscriber process',
  'and the load generator each took, each event\'s time from its record\'s created to the first and to the',
  'last subscriber while the creates run, and both processes\' event-loop delay); then 10,000 idle',
  'subscribers (five loopback addresses):',
  'the server\'s RSS growth per subscriber. Batch: 50 creates in one POST /api/batch against 50 single',
  'creates in a row, alternating.',
  'Team server: view, list and create on the desktop engine, on one node and on two nodes (5 connections',
  'each, at once) over one PostgreSQL 15 the bench starts on loopback (fsync and synchronous_commit on),',
  'the three alternating in slices; skipped when PostgreSQL is not installed.',
  'Hooks: the create case on two servers seeded alike, without pb_hooks and with one empty onRecordCreate',
  'hook (e.next() only), alternating in slices.',
  'Long operations: each on the large data set in its own server process, /api/health and a page of posts',
  'asked every 50 ms from the runner meanwhile; the longest health answer is what any request waited.',
  'Admin UI: the UI built for the run, served by a server in the runner\'s process (the product\'s defaults),',
  'Debian\'s Chromium (playwright-core); three fresh contexts: sign-in to the first rows, and a 5,000-record',
  'collection opened from another page to its rows and count (bench/ui.ts); skipped without Chromium.',
];

async function main(): Promise<void> {
  const s = settingsFromArgs();
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-bench-'));
  const children = new Set<Child>();
  // past the time bound or on Ctrl-C: kill our children (by pid) and remove the temporary folder
  const abort = (reason: string, code: number) => {
    console.error(`bench: ${reason}`);
    for (const child of children) process.kill(child.pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  };
  const watchdog = setTimeout(() => abort(`still running after ${WATCHDOG_MS / 60000} minutes, giving up`, 2), WATCHDOG_MS);
  watchdog.unref();
  process.once('SIGINT', () => abort('interrupted', 130));
  console.log(`Deskbase bench on ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}`);
  try {
    if (s.profileDir !== null) await mkdir(s.profileDir, { recursive: true });
    console.log(`\n1. ${s.mainPosts.toLocaleString('en')} posts, Deskbase and ceiling, ${s.seconds} s per case`);
    const main = await runMain(s, dir, children);
    console.log(`\n2. scale: ${s.smallPosts.toLocaleString('en')} and ${s.largePosts.toLocaleString('en')} posts, side by side`);
    const { small, large } = await runScale(s, dir, children);
    console.log(`
3. realtime and batch: ${s.smallPosts.toLocaleString('en')} posts`);
    const realtime = await runRealtime(s, dir, children);
    console.log(`
4. records import: ${s.largePosts.toLocaleString('en')} posts in one request`);
    const recordsImport = await runImportBench(s.largePosts, dir, children, s.log);
    console.log(`
4b. long operations on ${s.largePosts.toLocaleString('en')} posts while /api/health is asked every 50 ms`);
    const stretch = await runStretchBench(s.largePosts, dir, children, s.log);
    console.log(`
5. team server: ${s.mainPosts.toLocaleString('en')} posts, desktop, one node and two nodes on one PostgreSQL`);
    const team = await runTeam(s, dir, children);
    console.log(`
6. hooks: the create rate with an empty onRecordCreate hook, ${s.smallPosts.toLocaleString('en')} posts`);
    const hooks = await runHooksBench(s, dir, children);
    console.log(`
7. admin UI in Chromium: sign-in and a 5,000-record collection, three fresh contexts`);
    const ui = await runUiBench(dir, s.log);
    const results: BenchResults = { ...main, small, large, realtime, recordsImport, team, hooks, stretch, ui };
    const checked = targets(results);
    const lines = ['', ...METHOD, '', ...mainTable(results), '', ...saturatedTable(results), '', ...scaleTable(results), '', ...realtimeTable(realtime), '', ...importTable(recordsImport), '', ...stretchTable(s.largePosts, stretch), '', ...teamTable(team), '', ...hooksTable(hooks), '', ...uiTable(ui), '', ...targetTable(checked)];
    console.log(lines.join('\n'));
    const file = await writeResults(s, results, checked, (performance.now() - started) / 1000);
    console.log(`\nResults: ${file} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    clearTimeout(watchdog);
    await tearDown(children, dir);
  }
}

async function writeResults(s: Settings, results: BenchResults, checked: ReturnType<typeof targets>, seconds: number): Promise<string> {
  const folder = join(dirname(fileURLToPath(import.meta.url)), 'results');
  await mkdir(folder, { recursive: true });
  const date = new Date().toISOString();
  const file = join(folder, `bench-${date.replace(/[:.]/g, '-')}.json`);
  const machine = { cpus: cpus().length, model: cpus()[0]?.model ?? '', memoryBytes: totalmem(), node: process.version, platform: process.platform };
  const { log: _log, ...settings } = s;
  await writeFile(file, `${JSON.stringify({ date, machine, method: METHOD.join(' '), settings, seconds, results, targets: checked }, null, 2)}\n`);
  return file;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
