// The realtime and batch phase: one server (its own child process) with 1,000 guests subscribed to
// `posts/*` over raw SSE connections from this process. Delivery: a signed-in user creates a post, one
// at a time, and the time from sending the create to the last subscriber holding its event is taken
// (p50/p99). Cost to writers: the create rate with the 1,000 subscribers attached and with none, in
// alternating slices (the subscribers are re-attached for each slice). Batch: 50 creates in one batch
// against 50 single creates one after another, alternating.
import { Agent, request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { createBody, httpCases } from './cases.js';
import { spawnChild, type Child } from './children.js';
import { figures, pool, type LoadResult, type LoadRun } from './load.js';
import { load, track, type Settings } from './phases.js';
import { table } from './report.js';
import type { SeedInfo } from './protocol.js';

export const SUBSCRIBERS = 1000;

export interface RealtimeFigures {
  subscribers: number;
  /** Create sent → the last subscriber has the event, ms. */
  deliveryP50: number;
  deliveryP99: number;
  creates: number;
  attached: LoadResult;
  detached: LoadResult;
  /** 50 creates: one batch against 50 single requests in a row, ms (median of the rounds). */
  batchMs: number;
  singlesMs: number;
}

interface Subscriber {
  /** `event:` lines seen for the topic. */
  events: number;
  close(): void;
}

const TOPIC = 'posts/*';
const MARK = `event:${TOPIC}`;

/** One SSE client: connects, subscribes to posts/* once PB_CONNECT names it, counts its events. */
function subscribe(url: string, agent: Agent): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/realtime`, { agent, headers: { accept: 'text/event-stream' } }, (res: IncomingMessage) => {
      res.setEncoding('utf8');
      let head = '';
      let tail = '';
      const sub: Subscriber = { events: 0, close: () => req.destroy() };
      res.on('data', (chunk: string) => {
        if (head !== null && !head.includes('\n\n')) {
          head += chunk;
          const m = /id:(\w+)\nevent:PB_CONNECT/.exec(head);
          if (m && head.includes('\n\n')) {
            fetch(`${url}/api/realtime`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: m[1], subscriptions: [TOPIC] }) })
              .then((r) => (r.status === 204 ? resolve(sub) : reject(new Error(`subscribe: ${r.status}`))), reject);
          }
          return;
        }
        // count markers, including one split across two chunks
        const text = tail + chunk;
        let at = text.indexOf(MARK);
        while (at >= 0) {
          sub.events++;
          at = text.indexOf(MARK, at + MARK.length);
        }
        tail = text.slice(-(MARK.length - 1));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function attach(url: string, agent: Agent, n: number): Promise<Subscriber[]> {
  const out: Subscriber[] = [];
  for (let i = 0; i < n; i += 50) out.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => subscribe(url, agent)))));
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > end) throw new Error('realtime bench: events did not arrive in time');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const median = (xs: number[]): number => percentile([...xs].sort((a, b) => a - b), 0.5);

async function createOne(url: string, info: SeedInfo, body: string): Promise<void> {
  const res = await fetch(`${url}/api/collections/posts/records`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: info.userToken }, body });
  if (res.status !== 200) throw new Error(`create: ${res.status}`);
  await res.arrayBuffer();
}

async function batchOf(url: string, info: SeedInfo, body: string, n: number): Promise<void> {
  const requests = Array.from({ length: n }, () => ({ method: 'POST', url: '/api/collections/posts/records', body: JSON.parse(body) as unknown }));
  const res = await fetch(`${url}/api/batch`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: info.userToken }, body: JSON.stringify({ requests }) });
  if (res.status !== 200) throw new Error(`batch: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

export async function runRealtime(s: Settings, dir: string, children: Set<Child>): Promise<RealtimeFigures> {
  const child = track(children, spawnChild(s.profileDir));
  const info = await child.call<SeedInfo>({ op: 'seed', dir: join(dir, 'realtime'), posts: s.smallPosts, users: s.users }, 300_000);
  const url = info.url;
  const body = createBody(info);
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  let subs = await attach(url, agent, SUBSCRIBERS);
  s.log(`${subs.length} subscribers attached`);

  // delivery to the last subscriber, one create at a time
  const creates = s.rounds === 1 ? 20 : 60;
  const times: number[] = [];
  for (let i = 0; i < creates; i++) {
    const before = subs.map((x) => x.events);
    const t0 = performance.now();
    await createOne(url, info, body);
    await until(() => subs.every((x, j) => x.events > before[j]), 30_000);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  s.log(`delivery to the last of ${subs.length}: p50 ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms`);

  // the create rate with the subscribers attached and with none, alternating
  const create = httpCases(info).create;
  const runs: [LoadRun[], LoadRun[]] = [[], []];
  const slice = s.seconds / s.rounds;
  for (let round = 0; round < s.rounds; round++) {
    if (subs.length === 0) subs = await attach(url, agent, SUBSCRIBERS);
    runs[0].push(await load(s, url, create, slice));
    for (const x of subs) x.close();
    subs = [];
    // the server notices the closed streams and finishes the deliveries still queued for them
    await sleep(200);
    await createOne(url, info, body);
    runs[1].push(await load(s, url, create, slice));
  }
  const [attached, detached] = [figures(pool(runs[0])), figures(pool(runs[1]))];
  s.log(`create with ${SUBSCRIBERS} subscribers: ${attached.rps.toFixed(0)} req/s; with none: ${detached.rps.toFixed(0)} req/s`);

  // 50 creates: one batch against 50 singles
  const batchTimes: number[] = [];
  const singleTimes: number[] = [];
  for (let round = 0; round < (s.rounds === 1 ? 3 : 10); round++) {
    let t0 = performance.now();
    await batchOf(url, info, body, 50);
    batchTimes.push(performance.now() - t0);
    t0 = performance.now();
    for (let i = 0; i < 50; i++) await createOne(url, info, body);
    singleTimes.push(performance.now() - t0);
  }
  s.log(`50 creates: batch ${median(batchTimes).toFixed(1)} ms, singles ${median(singleTimes).toFixed(1)} ms`);
  agent.destroy();
  return {
    subscribers: SUBSCRIBERS, deliveryP50: percentile(times, 0.5), deliveryP99: percentile(times, 0.99), creates,
    attached, detached, batchMs: median(batchTimes), singlesMs: median(singleTimes),
  };
}

export function realtimeTable(r: RealtimeFigures): string[] {
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  return table([
    [`realtime and batch (${r.subscribers.toLocaleString('en')} subscribers on posts/*)`, 'value'],
    [`one create delivered to the last subscriber, p50 / p99 (${r.creates} creates)`, `${ms(r.deliveryP50)} / ${ms(r.deliveryP99)}`],
    ['create rate, subscribers attached / none (10 connections)', `${r.attached.rps.toFixed(0)}/s / ${r.detached.rps.toFixed(0)}/s`],
    ['create p50 latency, subscribers attached / none', `${ms(r.attached.p50)} / ${ms(r.detached.p50)}`],
    ['50 creates: one batch / 50 single requests in a row (median)', `${ms(r.batchMs)} / ${ms(r.singlesMs)}`],
  ]);
}
