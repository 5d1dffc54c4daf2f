// The cost of server-side hooks on the create rate (issue 27): the same durable create (a signed-in
// user's ~500-character post) against two servers seeded alike, one without hooks and one whose
// pb_hooks folder holds only an empty onRecordCreate hook (`e.next()`), alternating in slices.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpCases } from './cases.js';
import { spawnChild, tearDown, type Child } from './children.js';
import { alternate, fmtResult, track, type Measured, type Settings } from './phases.js';
import type { SeedInfo } from './protocol.js';
import { table } from './report.js';

export interface HooksFigures {
  posts: number;
  plain: Measured;
  emptyHook: Measured;
}

export const EMPTY_CREATE_HOOK = 'onRecordCreate((e) => {\n  e.next();\n}, "posts");\n';

export async function runHooksBench(s: Settings, dir: string, children: Set<Child>): Promise<HooksFigures> {
  const hooksDir = join(dir, 'pb_hooks_empty');
  await mkdir(hooksDir, { recursive: true });
  await writeFile(join(hooksDir, 'empty.pb.js'), EMPTY_CREATE_HOOK);
  const plainChild = track(children, spawnChild(s.profileDir));
  const hookedChild = track(children, spawnChild(s.profileDir));
  const plain = await plainChild.call<SeedInfo>({ op: 'seed', dir: join(dir, 'hooks-plain'), posts: s.smallPosts, users: s.users }, 300_000);
  const hooked = await hookedChild.call<SeedInfo>({ op: 'seed', dir: join(dir, 'hooks-empty'), posts: s.smallPosts, users: s.users, hooksDir }, 300_000);
  const [p, h] = await alternate(s, { url: plain.url, c: httpCases(plain).create, child: plainChild }, { url: hooked.url, c: httpCases(hooked).create, child: hookedChild });
  s.log(`create without hooks: ${fmtResult(p)} | with an empty onRecordCreate hook: ${fmtResult(h)} | ${(100 * h.rps / p.rps).toFixed(0)}%`);
  return { posts: plain.postsCount, plain: p, emptyHook: h };
}

export function hooksTable(f: HooksFigures): string[] {
  const row = (label: string, m: Measured) => [label, m.rps.toFixed(0), m.p50.toFixed(2), m.p99.toFixed(2), m.cpuUsPerRequest.toFixed(0)];
  return table([
    [`hooks: create (${f.posts.toLocaleString('en')} posts, 10 connections)`, 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req'],
    row('no pb_hooks', f.plain),
    row('an empty onRecordCreate hook', f.emptyHook),
    ['with the hook / without', `${(100 * f.emptyHook.rps / f.plain.rps).toFixed(0)}%`, '', '', ''],
  ]);
}

// `npx tsx bench/hooks.ts [--seconds S]`: this phase alone (npm run bench runs it as its phase 6)
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--seconds');
  const seconds = at > 0 ? Number(process.argv[at + 1]) : 10;
  const s: Settings = {
    connections: 10, seconds, rounds: 5, warmupSeconds: 1, mainPosts: 0, smallPosts: 1_000, largePosts: 0, users: 100,
    profileDir: null, log: (line) => console.log(`  ${line}`),
  };
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-bench-hooks-'));
  const children = new Set<Child>();
  try {
    console.log(hooksTable(await runHooksBench(s, dir, children)).join('\n'));
  } finally {
    await tearDown(children, dir);
  }
}
