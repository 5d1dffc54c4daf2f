// The bench's realtime section alone (section 3 of `npm run bench`), for measuring a realtime change
// without the whole run:
//
//   npx tsx bench/realtime-run.ts [--seconds 10] [--rounds 5] [--no-idle] [--no-batch] [--profile DIR]
//                                 [--profile-attached FILE]
//
// --profile DIR: the server runs under `node --cpu-prof` and writes its .cpuprofile to DIR.
// --profile-attached FILE: the server's main thread profiled over the first slice of creates with the
// subscribers attached, written to FILE (a .cpuprofile).
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { tearDown, type Child } from './children.js';
import type { Settings } from './phases.js';
import { realtimeTable, runRealtime } from './realtime.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' }, rounds: { type: 'string' }, profile: { type: 'string' }, 'profile-attached': { type: 'string' },
      'no-idle': { type: 'boolean', default: false }, 'no-batch': { type: 'boolean', default: false },
    },
  });
  const s: Settings = {
    connections: 10, seconds: Number(values.seconds ?? 10), rounds: Number(values.rounds ?? 5), warmupSeconds: 1,
    mainPosts: 0, smallPosts: 1_000, largePosts: 0, users: 100,
    profileDir: values.profile ? resolve(values.profile) : null,
    log: (line) => console.log(`  ${line}`),
  };
  if (s.profileDir !== null) await mkdir(s.profileDir, { recursive: true });
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-realtime-'));
  const children = new Set<Child>();
  try {
    const r = await runRealtime(s, dir, children, { idle: values['no-idle'] !== true, batch: values['no-batch'] !== true, profileAttached: values['profile-attached'] === undefined ? undefined : resolve(values['profile-attached']) });
    console.log(['', ...realtimeTable(r)].join('\n'));
  } finally {
    await tearDown(children, dir);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
