// Budgets count work, not time (issue 28): the bench's list and view cases, on the bench's own data in a
// server of its own process, get the same answers while every core of the machine is held by busy
// processes as they got on the quieter machine just before, and none is refused. A budget measured in
// wall-clock time fails here: a list that needs a few tens of ms alone is descheduled past 150 ms once
// the cores are taken (seen in CI and in a 10-connection load run before the budget counted work).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { httpCases, type CaseId } from '../../bench/cases.js';
import { spawnChild, type Child } from '../../bench/children.js';
import { saturateCores, type Busy } from '../../bench/busy.js';
import { computedHeader } from '../../bench/load.js';
import type { SeedInfo } from '../../bench/protocol.js';

/** Enough posts that the heaviest cases (an unindexed sort, a `~` scan) take tens of ms of work each. */
const POSTS = 50_000;
/** The read-only cases of the bench (a create would change the data the answers are compared on). */
const CASES: CaseId[] = ['view', 'list', 'listSkipTotal', 'listFilter', 'listExpand', 'listExpandMulti', 'listSortTitle', 'listDeepPage'];
/** Requests in flight at once while the cores are taken, as the bench's load runs have them. */
const CONNECTIONS = 8;
/** Rounds of every case under saturation. */
const ROUNDS = 6;
/** No busy process outlives this, whatever happens to the test. */
const BUSY_MS = 90_000;

let child: Child;
let dir = '';
let info: SeedInfo;
let busy: Busy | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'deskbase-saturated-'));
  child = spawnChild(null);
  info = await child.call<SeedInfo>({ op: 'seed', dir, posts: POSTS, users: 100 }, 180_000);
}, 200_000);

afterAll(async () => {
  busy?.stop();
  await child?.stop();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

/**
 * One answer, computed: each request carries a header of its own, so no answer is kept between requests
 * (http/read-cache.ts keys answers by the headers a rule can read) and every one does its work again.
 */
async function answer(path: string): Promise<{ status: number; body: string; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${info.url}${path}`, { headers: computedHeader() });
  const body = await res.text();
  return { status: res.status, body, ms: performance.now() - t0 };
}

/** Runs `paths` with CONNECTIONS requests in flight; returns each answer in the order of `paths`. */
async function runAll(paths: string[]): Promise<{ status: number; body: string; ms: number }[]> {
  const out: { status: number; body: string; ms: number }[] = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < paths.length; i = next++) out[i] = await answer(paths[i]);
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return out;
}

it('answers the bench\'s list and view cases the same, none refused, while every core is busy', async () => {
  const cases = httpCases(info);
  const paths = CASES.flatMap((id) => cases[id].paths.slice(0, 10));
  const idle = await runAll(paths);
  for (const [i, a] of idle.entries()) expect(a.status, `${paths[i]}: ${a.body.slice(0, 200)}`).toBe(200);
  const slowestIdle = Math.max(...idle.map((a) => a.ms));

  // four busy processes per core: the server gets about a fifth of a core, so a list of 30-100 ms of
  // work alone (the `~` scan, the unindexed sort) takes several times the old 150 ms of wall clock
  busy = await saturateCores(BUSY_MS);
  const refused: string[] = [];
  const changed: string[] = [];
  let slowest = 0;
  const t0 = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    const answers = await runAll(paths);
    answers.forEach((a, i) => {
      slowest = Math.max(slowest, a.ms);
      if (a.status < 200 || a.status > 299) refused.push(`${a.status} ${paths[i]}: ${a.body.slice(0, 160)}`);
      else if (a.body !== idle[i].body) changed.push(paths[i]);
    });
  }
  const busyMs = performance.now() - t0;
  busy.stop();
  console.log(`saturated: ${ROUNDS * paths.length} requests in ${busyMs.toFixed(0)} ms, slowest ${slowest.toFixed(0)} ms (idle ${slowestIdle.toFixed(0)} ms), ${refused.length} refused`);
  expect(refused).toEqual([]);
  expect(changed).toEqual([]);
}, 240_000);
