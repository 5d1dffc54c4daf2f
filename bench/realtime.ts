// The realtime and batch phase: one server (its own child process) and its subscribers in another
// (bench/subscribers.ts), so neither the server nor the load generator reads the event streams.
// Delivery: with 1,000 guests subscribed to `posts/*`, a signed-in user creates a post, one at a time,
// and the time from sending the create to the last subscriber holding its event is taken (p50/p99).
// Cost to writers: the create rate with the 1,000 subscribers attached and with none, in alternating
// slices (the subscribers are re-attached for each slice). Idle memory: the server's RSS before and
// after 10,000 subscribers connect (from five loopback addresses, 2,000 each: the per-address
// connection limit), and one create delivered to all of them. Batch: 50 creates in one batch against
// 50 single creates one after another, alternating.
import { join } from 'node:path';
import { createBody, httpCases, type HttpCase } from './cases.js';
import { spawnChild, stop, type Child } from './children.js';
import { figures, pool, type LoadResult, type LoadRun } from './load.js';
import { load, track, type Settings } from './phases.js';
import { LoopWatch } from './loop-watch.js';
import { pin, planPinning, type Pinning } from './pin.js';
import type { FloorRates, FloorRun } from './realtime-floor.js';
import { table } from './report.js';
import type { LoopFigures, MemoryInfo, RealtimeTraceEntries, SeedInfo } from './protocol.js';

export const SUBSCRIBERS = 1000;
export const IDLE_SUBSCRIBERS = 10_000;
const SUBSCRIBERS_SCRIPT = join(import.meta.dirname, 'subscribers.ts');
const TOPIC = 'posts/*';
/** Loopback addresses the idle subscribers connect from (Linux routes all of 127/8 to lo). */
const ADDRESSES = ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];

/** The event loops of the server, the subscriber process and the load generator over the create slices. */
export interface Loops {
  server: LoopFigures;
  subscribers: LoopFigures;
  runner: LoopFigures;
}

export interface RealtimeFigures {
  /** How the processes were placed on the cores (bench/pin.ts). */
  pinning: string;
  subscribers: number;
  /** Create sent → the last subscriber has the event, ms. */
  deliveryP50: number;
  deliveryP99: number;
  creates: number;
  /**
   * While the creates run at full rate with the subscribers attached: each event's time from its
   * record's `created` to the last subscriber holding it, ms (p50/p99), over the events every
   * subscriber got; `incomplete`: events some subscriber had not got 300 ms after the slice.
   */
  loaded: { p50: number; p99: number; events: number; incomplete: number; firstP50: number; firstP99: number; readsPerSubscriberPerSecond: number };
  /**
   * The same events on the server's side (server/core/realtime/trace.ts): from the record's `created`
   * to the end of the round that wrote it to its last subscriber, and its parts; null where the server
   * has no trace (an older commit).
   */
  server: ServerDelivery | null;
  /**
   * The event loops over the create slices, attached / none (bench/loop-watch.ts): the server's and the
   * subscriber process's. A subscriber loop that is late reads late: its delay is part of the delivery
   * figures, not the server's.
   */
  loops: { attached: Loops; detached: Loops };
  attached: LoadResult;
  detached: LoadResult;
  /**
   * Where the machine's CPU went during the create slices, attached / none, as a share of one core:
   * the server, the subscriber process and the runner (autocannon); and the server's CPU µs per
   * create. The three share the cores, so the rate with subscribers is only a fair figure when the
   * subscriber process is not what holds the server back (see the method note in bench/run.ts).
   */
  cpu: { attached: CpuShares; detached: CpuShares };
  idle: {
    subscribers: number;
    /** Server RSS growth over the idle subscribers, bytes per subscriber. */
    rssPerSubscriber: number;
    rssBeforeBytes: number;
    rssAfterBytes: number;
    /** One create delivered to the last of them, ms. */
    deliveryMs: number;
  };
  /**
   * The realtime floor (bench/realtime-floor.ts): a bare node:http SSE server, pinned as the server is,
   * writing to the same 1,000 subscribers at this run's rates (its events a second with subscribers
   * attached, its rounds a second, its events' size) and at the targets' (80% of the rate with none,
   * a round every 30 ms); null when the run had no server trace to take the rates from.
   */
  floor: { measured: FloorFigures; target: FloorFigures } | null;
  /** 50 creates: one batch against 50 single requests in a row, ms (median of the rounds). */
  batchMs: number;
  singlesMs: number;
}

/** A floor run at some rates, with the subscribers' delivery (each event's `created` → its last subscriber holding it, ms). */
export interface FloorFigures extends FloorRun {
  rates: FloorRates;
  deliveryP50: number;
  deliveryP99: number;
  incomplete: number;
  /** The subscriber process's CPU over the run, a share of one core. */
  subscribersShare: number;
}

/** The subscriber process: `count` more SSE clients on `posts/*` of the server at `url`. */
export function spawnSubscribers(): Child {
  return spawnChild(null, SUBSCRIBERS_SCRIPT);
}

export interface CpuShares {
  server: number;
  subscribers: number;
  runner: number;
  serverUsPerCreate: number;
  /** Of serverUsPerCreate, the kernel's (system time: on loopback a write also pays the receiver's TCP work). */
  serverSystemUsPerCreate: number;
  /** Of serverUsPerCreate, the main thread's (the event loop's), and of that the kernel's (NaN where /proc is missing). */
  serverMainUsPerCreate: number;
  serverMainSystemUsPerCreate: number;
}

/** p50 / p99, ms. */
export interface Spread {
  p50: number;
  p99: number;
}

/** Realtime delivery while creating at full rate, on the server's side (server/core/realtime/trace.ts). */
export interface ServerDelivery {
  events: number;
  /** created → the end of the round that wrote the event to its last subscriber. */
  delivered: Spread;
  /** Its parts: created → its commit reaching the fan-out; → its message queued on the streams; → its round's start; the round itself. */
  committed: Spread;
  fannedOut: Spread;
  roundWait: Spread;
  round: Spread;
  roundsPerSecond: number;
  /** Per round: streams written, and its CPU, user and system (µs). */
  writesPerRound: number;
  roundUserUs: number;
  roundSystemUs: number;
  /** Of it, the event loop's own thread's CPU per round, µs (the rest is other threads': V8's compiler and GC helpers); NaN where unknown. */
  roundThreadUs: number;
  /** Streams skipped (a socket still holding its last write): their events are later than the round figure says. */
  skipped: number;
}

interface CpuTime {
  user: number;
  system: number;
}

interface ThreadCpu {
  main: CpuTime;
  others: CpuTime;
}
const cpuUs = (t: CpuTime) => t.user + t.system;

interface Slice {
  run: LoadRun;
  cpu: number[];
  /** The server's system CPU time over the slice, µs. */
  serverSystem: number;
  /** The server's main thread's CPU over the slice, µs, all and system (NaN without /proc). */
  serverMain: number;
  serverMainSystem: number;
  /** The server's, the subscriber process's and the load generator's event loops over the slice. */
  loops: LoopFigures[];
}

/** One create slice with the CPU time each process spent during it and how their loops fared. */
async function measuredLoad(s: Settings, url: string, c: HttpCase, seconds: number, server: Child, subscribers: Child): Promise<Slice> {
  const at = async () => {
    const own = await server.call<CpuTime>({ op: 'cpu' });
    return [cpuUs(own), cpuUs(await subscribers.call<CpuTime>({ op: 'cpu' })), cpuUs(process.cpuUsage()), own.system];
  };
  await server.call({ op: 'loopStart' });
  await subscribers.call({ op: 'loopStart' });
  const runner = new LoopWatch();
  runner.start();
  const threads = async () => (await server.call<ThreadCpu | null>({ op: 'threadCpu' })) ?? { main: { user: NaN, system: NaN }, others: { user: NaN, system: NaN } };
  const threadsBefore = await threads();
  const before = await at();
  const run = await load(s, url, c, seconds);
  const after = await at();
  const threadsAfter = await threads();
  const loops = [await server.call<LoopFigures>({ op: 'loopStop' }), await subscribers.call<LoopFigures>({ op: 'loopStop' }), runner.stop()];
  const cpu = after.map((x, i) => x - before[i]);
  const serverMainSystem = threadsAfter.main.system - threadsBefore.main.system;
  return { run, cpu: cpu.slice(0, 3), serverSystem: cpu[3], serverMain: threadsAfter.main.user - threadsBefore.main.user + serverMainSystem, serverMainSystem, loops };
}

/** The slices' loops as one: the worst slice's delay figures, the mean utilization. */
function loopsOf(runs: Slice[]): { server: LoopFigures; subscribers: LoopFigures; runner: LoopFigures } {
  const of = (i: number): LoopFigures => {
    const ls = runs.map((r) => r.loops[i]);
    const max = (k: keyof LoopFigures) => Math.max(...ls.map((l) => l[k]));
    return { delayP50: max('delayP50'), delayP99: max('delayP99'), delayMax: max('delayMax'), utilization: ls.reduce((n, l) => n + l.utilization, 0) / ls.length };
  };
  return { server: of(0), subscribers: of(1), runner: of(2) };
}

const spreadLine = (x: Spread) => `${x.p50.toFixed(1)} / ${x.p99.toFixed(1)} ms`;
const serverLine = (d: ServerDelivery) =>
  `created → written to the last subscriber p50 / p99 ${spreadLine(d.delivered)} over ${d.events} events; parts: created → committed ${spreadLine(d.committed)}, → queued on the streams ${spreadLine(d.fannedOut)}, → its round's start ${spreadLine(d.roundWait)}, the round ${spreadLine(d.round)}; ${d.roundsPerSecond.toFixed(1)} rounds/s of ${d.writesPerRound.toFixed(0)} writes, ${d.roundUserUs.toFixed(0)} µs user + ${d.roundSystemUs.toFixed(0)} µs system each (the loop's thread ${d.roundThreadUs.toFixed(0)} µs of it); ${d.skipped} streams skipped`;

const loopLine = (l: LoopFigures) => `delay p99 ${l.delayP99.toFixed(1)} ms (max ${l.delayMax.toFixed(0)}), busy ${(100 * l.utilization).toFixed(0)}%`;

function shares(runs: Slice[]): CpuShares {
  const seconds = runs.reduce((n, r) => n + r.run.seconds, 0);
  const ok = runs.reduce((n, r) => n + r.run.ok, 0);
  const sum = (i: number) => runs.reduce((n, r) => n + r.cpu[i], 0);
  const per = (f: (r: Slice) => number) => runs.reduce((n, r) => n + f(r), 0) / Math.max(1, ok);
  return {
    server: sum(0) / 1e6 / seconds, subscribers: sum(1) / 1e6 / seconds, runner: sum(2) / 1e6 / seconds, serverUsPerCreate: sum(0) / Math.max(1, ok),
    serverSystemUsPerCreate: per((r) => r.serverSystem), serverMainUsPerCreate: per((r) => r.serverMain), serverMainSystemUsPerCreate: per((r) => r.serverMainSystem),
  };
}

const spread = (xs: number[]): Spread => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
};

/**
 * The server's trace of the attached slices as delivery figures: each event's round is the first that
 * started after its message was queued (server/core/realtime/trace.ts says why that round's end is
 * when its last subscriber's write was done).
 */
export function serverDelivery(traces: RealtimeTraceEntries[], seconds: number): ServerDelivery | null {
  if (traces.length === 0) return null;
  const delivered: number[] = [];
  const committed: number[] = [];
  const fannedOut: number[] = [];
  const roundWait: number[] = [];
  const round: number[] = [];
  let rounds = 0;
  let writes = 0;
  let user = 0;
  let system = 0;
  let skipped = 0;
  let thread = 0;
  for (const { events, rounds: r, roundThreads } of traces) {
    thread += roundThreads === undefined ? NaN : roundThreads.reduce((a, b) => a + b, 0);
    const n = r.length / 6;
    rounds += n;
    for (let i = 0; i < n; i++) {
      writes += r[6 * i + 2];
      skipped += r[6 * i + 3];
      user += r[6 * i + 4];
      system += r[6 * i + 5];
    }
    let j = 0;
    for (let e = 0; e < events.length; e += 3) {
      const [created, commit, queued] = [events[e], events[e + 1], events[e + 2]];
      // events come in queuing order, rounds in starting order
      while (j < n && r[6 * j] < queued) j++;
      if (j >= n || !(created > 0)) continue; // written after the trace ended
      const [start, end] = [r[6 * j], r[6 * j + 1]];
      delivered.push(end - created);
      committed.push(commit - created);
      fannedOut.push(queued - commit);
      roundWait.push(start - queued);
      round.push(end - start);
    }
  }
  return {
    events: delivered.length, delivered: spread(delivered), committed: spread(committed), fannedOut: spread(fannedOut),
    roundWait: spread(roundWait), round: spread(round), roundsPerSecond: rounds / seconds,
    writesPerRound: writes / Math.max(1, rounds), roundUserUs: user / Math.max(1, rounds), roundSystemUs: system / Math.max(1, rounds), roundThreadUs: thread / Math.max(1, rounds), skipped,
  };
}

export async function attach(subscribers: Child, url: string, count: number, addresses = ADDRESSES.slice(0, 1)): Promise<number> {
  return subscribers.call<number>({ op: 'attach', url, topic: TOPIC, count, addresses }, 300_000);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const median = (xs: number[]): number => (xs.length === 0 ? NaN : percentile([...xs].sort((a, b) => a - b), 0.5));

async function createOne(url: string, info: SeedInfo, body: string): Promise<void> {
  const res = await fetch(`${url}/api/collections/posts/records`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: info.userToken }, body });
  if (res.status !== 200) throw new Error(`create: ${res.status}`);
  await res.arrayBuffer();
}

/** Creates one at a time: from sending each to the last attached subscriber holding its event, ms, sorted. */
export async function deliveryTimes(subscribers: Child, url: string, info: SeedInfo, creates: number): Promise<number[]> {
  const body = createBody(info);
  const times: number[] = [];
  for (let i = 0; i < creates; i++) {
    await subscribers.call({ op: 'arm' });
    const t0 = performance.now();
    await createOne(url, info, body);
    await subscribers.call({ op: 'reached', timeoutMs: 30_000 }, 60_000);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

async function batchOf(url: string, info: SeedInfo, body: string, n: number): Promise<void> {
  const requests = Array.from({ length: n }, () => ({ method: 'POST', url: '/api/collections/posts/records', body: JSON.parse(body) as unknown }));
  const res = await fetch(`${url}/api/batch`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: info.userToken }, body: JSON.stringify({ requests }) });
  if (res.status !== 200) throw new Error(`batch: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

export async function runRealtime(s: Settings, dir: string, children: Set<Child>, parts: { idle: boolean; batch: boolean; profileAttached?: string } = { idle: true, batch: true }): Promise<RealtimeFigures> {
  const child = track(children, spawnChild(s.profileDir));
  const subscribers = track(children, spawnSubscribers());
  const pinning = pinProcesses(child, subscribers);
  s.log(pinning.note);
  // the idle subscribers' memory and the batch are measured as before: every process on every core
  // (a server held to one core runs its garbage collector's threads there too)
  const unpin = () => {
    if (!('before' in pinning)) return;
    for (const pid of [child.pid, subscribers.pid, process.pid]) pin(pid, pinning.before);
  };
  try {
    return await realtimeSection(s, dir, children, parts, child, subscribers, pinning, unpin);
  } finally {
    unpin();
  }
}

/**
 * The server on a core of its own, the subscriber process and this one (the load generator) on the
 * others (bench/pin.ts), for every slice: what the server does for its subscribers is measured, not
 * how the subscribers' reading competes with it for the same cores.
 */
function pinProcesses(server: Child, subscribers: Child): Pinning | { note: string } {
  const plan = planPinning();
  if (!('server' in plan)) return plan;
  if (pin(server.pid, plan.server) && pin(subscribers.pid, plan.others) && pin(process.pid, plan.others)) return plan;
  pin(server.pid, plan.before);
  pin(subscribers.pid, plan.before);
  pin(process.pid, plan.before);
  return { note: 'processes unpinned: taskset refused to pin them' };
}

async function realtimeSection(s: Settings, dir: string, children: Set<Child>, parts: { idle: boolean; batch: boolean; profileAttached?: string }, child: Child, subscribers: Child, pinned: Pinning | { note: string }, unpin: () => void): Promise<RealtimeFigures> {
  const pinning = pinned.note;
  const info = await child.call<SeedInfo>({ op: 'seed', dir: join(dir, 'realtime'), posts: s.smallPosts, users: s.users }, 300_000);
  const url = info.url;
  const body = createBody(info);
  const attached = await attach(subscribers, url, SUBSCRIBERS);
  s.log(`${attached} subscribers attached`);

  // delivery to the last subscriber, one create at a time
  const creates = s.rounds === 1 ? 20 : 60;
  const times = await deliveryTimes(subscribers, url, info, creates);
  s.log(`delivery to the last of ${attached}: p50 ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms`);

  // the create rate with the subscribers attached and with none, alternating
  const create = httpCases(info).create;
  // creates at full rate with the subscribers attached before the first slice, as the other sections
  // warm both sides up (phases.ts alternate): the first slice, always an attached one, does not carry
  // the create and fan-out paths' first compiling alone
  if (s.warmupSeconds > 0) {
    await load(s, url, create, s.warmupSeconds);
    await sleep(300);
  }
  const runs: [Slice[], Slice[]] = [[], []];
  const loadedTimes: number[] = [];
  const firstTimes: number[] = [];
  let reads = 0;
  let incomplete = 0;
  const eventBytes: number[] = [];
  const traces: RealtimeTraceEntries[] = [];
  const slice = s.seconds / s.rounds;
  for (let round = 0; round < s.rounds; round++) {
    // attached for the delivery phase before the first slice; again for each later one
    if (round > 0) await attach(subscribers, url, SUBSCRIBERS);
    // the server's main thread profiled over the first attached slice alone (bench/realtime-run.ts)
    const profiled = round === 0 && parts.profileAttached !== undefined;
    if (profiled) await child.call({ op: 'profileStart' });
    await subscribers.call({ op: 'track' });
    const tracing = await child.call<boolean>({ op: 'traceStart' });
    runs[0].push(await measuredLoad(s, url, create, slice, child, subscribers));
    if (profiled) s.log(`profile: ${await child.call<string>({ op: 'profileStop', file: parts.profileAttached as string })}`);
    await sleep(300);
    // after the pause: the slice's last events have had their rounds
    if (tracing) traces.push(await child.call<RealtimeTraceEntries>({ op: 'traceStop' }));
    const t = await subscribers.call<{ times: number[]; first: number[]; incomplete: number; reads: number; eventBytes: number }>({ op: 'tracked' });
    eventBytes.push(t.eventBytes);
    reads += t.reads;
    loadedTimes.push(...t.times);
    firstTimes.push(...t.first);
    incomplete += t.incomplete;
    await subscribers.call({ op: 'detach' });
    // the server notices the closed streams and finishes the deliveries still queued for them
    await sleep(200);
    await createOne(url, info, body);
    runs[1].push(await measuredLoad(s, url, create, slice, child, subscribers));
  }
  const [withSubs, without] = runs.map((r) => figures(pool(r.map((x) => x.run))));
  const cpu = { attached: shares(runs[0]), detached: shares(runs[1]) };
  loadedTimes.sort((a, b) => a - b);
  firstTimes.sort((a, b) => a - b);
  const attachedSeconds = runs[0].reduce((n, r) => n + r.run.seconds, 0);
  const loaded = {
    p50: percentile(loadedTimes, 0.5), p99: percentile(loadedTimes, 0.99), events: loadedTimes.length, incomplete,
    firstP50: percentile(firstTimes, 0.5), firstP99: percentile(firstTimes, 0.99), readsPerSubscriberPerSecond: reads / SUBSCRIBERS / attachedSeconds,
  };
  s.log(`delivery to the last of ${SUBSCRIBERS} while creating: p50 ${loaded.p50} ms, p99 ${loaded.p99} ms over ${loaded.events} events (${incomplete} not yet with all)`);
  const server = serverDelivery(traces, attachedSeconds);
  if (server !== null) s.log(`  on the server's side: ${serverLine(server)}`);
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  s.log(`create with ${SUBSCRIBERS} subscribers: ${withSubs.rps.toFixed(0)} req/s; with none: ${without.rps.toFixed(0)} req/s (${pct(withSubs.rps / without.rps)})`);
  s.log(`  created → the first subscriber has it: p50 ${loaded.firstP50} ms, p99 ${loaded.firstP99} ms; ${loaded.readsPerSubscriberPerSecond.toFixed(1)} reads a second per subscriber`);
  for (const [name, c] of Object.entries(cpu)) {
    s.log(`  ${name}: CPU server ${pct(c.server)}, subscribers ${pct(c.subscribers)}, runner ${pct(c.runner)} of a core; server ${c.serverUsPerCreate.toFixed(0)} µs CPU/create (${c.serverSystemUsPerCreate.toFixed(0)} of it system; main thread ${c.serverMainUsPerCreate.toFixed(0)}, ${c.serverMainSystemUsPerCreate.toFixed(0)} of it system)`);
  }
  const loops = { attached: loopsOf(runs[0]), detached: loopsOf(runs[1]) };
  for (const [name, l] of Object.entries(loops)) s.log(`  loops ${name}: server ${loopLine(l.server)}; subscribers ${loopLine(l.subscribers)}; load generator ${loopLine(l.runner)}`);

  // the floor at this run's rates and at the targets', pinned as the server was
  let floor: RealtimeFigures['floor'] = null;
  if (server !== null && server.roundsPerSecond > 0) {
    const seconds = Math.max(2, attachedSeconds / 2);
    const bytes = Math.round(median(eventBytes));
    floor = await runFloor(s, children, subscribers, pinned, [
      { eventsPerSecond: withSubs.rps, roundsPerSecond: server.roundsPerSecond, eventBytes: bytes, seconds },
      { eventsPerSecond: REALTIME_TARGETS.createShare * without.rps, roundsPerSecond: 1000 / FLOOR_TARGET_ROUND_MS, eventBytes: bytes, seconds },
    ]);
    s.log(`  floor at this run's rates: ${floorLine(floor.measured)}`);
    s.log(`  floor at the targets' rates: ${floorLine(floor.target)}`);
  }

  unpin();
  let idle: RealtimeFigures['idle'] = { subscribers: 0, rssBeforeBytes: NaN, rssAfterBytes: NaN, rssPerSubscriber: NaN, deliveryMs: NaN };
  if (parts.idle) idle = await idleSubscribers(s, child, subscribers, url, info);
  const batchTimes: number[] = [];
  const singleTimes: number[] = [];
  if (parts.batch) await batchVersusSingles(s, url, info, body, batchTimes, singleTimes);
  await stop(children, subscribers);
  return {
    pinning, subscribers: SUBSCRIBERS, deliveryP50: percentile(times, 0.5), deliveryP99: percentile(times, 0.99), creates, loaded, server, loops,
    attached: withSubs, detached: without, cpu, floor, idle, batchMs: median(batchTimes), singlesMs: median(singleTimes),
  };
}

/** Rounds this far apart (ms) leave an event its 50 ms: its wait for the round and the round. */
const FLOOR_TARGET_ROUND_MS = 30;

const floorLine = (f: FloorFigures) =>
  `${f.rates.eventsPerSecond.toFixed(0)} events/s of ${f.rates.eventBytes} bytes in ${f.rates.roundsPerSecond.toFixed(1)} rounds/s (${(f.rounds / f.seconds).toFixed(1)} run), ${(f.writes / Math.max(1, f.rounds)).toFixed(0)} writes each: ` +
  `${f.roundUserUs.toFixed(0)} µs user + ${f.roundSystemUs.toFixed(0)} µs system per round (its thread ${f.roundThreadUs.toFixed(0)} µs; ${f.wholeUserUsPerRound.toFixed(0)} + ${f.wholeSystemUsPerRound.toFixed(0)} with what runs between rounds), ` +
  `server ${(100 * f.cpuShare).toFixed(0)}% of a core, subscribers ${(100 * f.subscribersShare).toFixed(0)}%; created → the last subscriber p50 / p99 ${f.deliveryP50} / ${f.deliveryP99} ms (${f.incomplete} incomplete, ${f.skipped} skipped)`;

/**
 * The floor (bench/realtime-floor.ts) in a child of its own, pinned where the server was, the same
 * subscriber process attached to it: one run per rates.
 */
async function runFloor(s: Settings, children: Set<Child>, subscribers: Child, pinned: Pinning | { note: string }, rates: [FloorRates, FloorRates]): Promise<{ measured: FloorFigures; target: FloorFigures }> {
  const floor = track(children, spawnChild(null));
  try {
    if ('server' in pinned) pin(floor.pid, pinned.server);
    const { url } = await floor.call<{ url: string }>({ op: 'realtimeFloor' });
    const out: FloorFigures[] = [];
    for (const r of rates) {
      await attach(subscribers, url, SUBSCRIBERS);
      await subscribers.call({ op: 'track' });
      const cpu0 = await subscribers.call<CpuTime>({ op: 'cpu' });
      const run = await floor.call<FloorRun>({ op: 'realtimeFloorRun', rates: r }, 120_000);
      const cpu1 = await subscribers.call<CpuTime>({ op: 'cpu' });
      await sleep(300);
      const t = await subscribers.call<{ times: number[]; incomplete: number }>({ op: 'tracked' });
      await subscribers.call({ op: 'detach' });
      await sleep(200);
      out.push({ ...run, rates: r, deliveryP50: percentile(t.times, 0.5), deliveryP99: percentile(t.times, 0.99), incomplete: t.incomplete, subscribersShare: (cpuUs(cpu1) - cpuUs(cpu0)) / 1e6 / run.seconds });
    }
    return { measured: out[0], target: out[1] };
  } finally {
    await stop(children, floor);
  }
}

/** 10,000 idle subscribers: the server's memory for them, and one create delivered to all. */
async function idleSubscribers(s: Settings, child: Child, subscribers: Child, url: string, info: SeedInfo): Promise<RealtimeFigures['idle']> {
  await sleep(500);
  const before = await child.call<MemoryInfo>({ op: 'memory' });
  const idleCount = await attach(subscribers, url, IDLE_SUBSCRIBERS, ADDRESSES);
  await sleep(1000);
  const after = await child.call<MemoryInfo>({ op: 'memory' });
  const [idleDelivery] = await deliveryTimes(subscribers, url, info, 1);
  await subscribers.call({ op: 'detach' });
  const idle = {
    subscribers: idleCount, rssBeforeBytes: before.rssBytes, rssAfterBytes: after.rssBytes,
    rssPerSubscriber: (after.rssBytes - before.rssBytes) / idleCount, deliveryMs: idleDelivery,
  };
  s.log(`${idleCount} idle subscribers: RSS ${(before.rssBytes / 2 ** 20).toFixed(0)} → ${(after.rssBytes / 2 ** 20).toFixed(0)} MB (${(idle.rssPerSubscriber / 1024).toFixed(1)} KB each); one create to the last of them in ${idleDelivery.toFixed(1)} ms`);
  await sleep(200);
  return idle;
}

/** 50 creates: one batch against 50 singles, alternating. */
async function batchVersusSingles(s: Settings, url: string, info: SeedInfo, body: string, batchTimes: number[], singleTimes: number[]): Promise<void> {
  for (let round = 0; round < (s.rounds === 1 ? 3 : 10); round++) {
    let t0 = performance.now();
    await batchOf(url, info, body, 50);
    batchTimes.push(performance.now() - t0);
    t0 = performance.now();
    for (let i = 0; i < 50; i++) await createOne(url, info, body);
    singleTimes.push(performance.now() - t0);
  }
  s.log(`50 creates: batch ${median(batchTimes).toFixed(1)} ms, singles ${median(singleTimes).toFixed(1)} ms`);
}

/** The floor's rows beside Deskbase's rounds (bench/realtime-floor.ts). */
function floorRows(r: RealtimeFigures): string[][] {
  if (r.floor === null) return [['  the floor (bare node:http SSE server, bench/realtime-floor.ts)', 'not run', '']];
  const f = (x: FloorFigures) => `${(x.roundUserUs / 1000).toFixed(2)} + ${(x.roundSystemUs / 1000).toFixed(2)} ms per round (${(x.roundThreadUs / 1000).toFixed(2)} ms); ${(100 * x.cpuShare).toFixed(0)}% of a core; delivery p50 / p99 ${x.deliveryP50} / ${x.deliveryP99} ms`;
  const m = r.floor.measured;
  const t = r.floor.target;
  return [
    [`  the floor (bare node:http SSE server, bench/realtime-floor.ts) at this run's rates (${m.rates.eventsPerSecond.toFixed(0)} events/s of ${m.rates.eventBytes} bytes, ${m.rates.roundsPerSecond.toFixed(1)} rounds/s, ${(m.writes / Math.max(1, m.rounds)).toFixed(0)} writes each): CPU per round user + system (its loop's thread); its share of a core; delivery`, f(m), ''],
    [`  the floor at the targets' rates (${t.rates.eventsPerSecond.toFixed(0)} events/s, a round every ${FLOOR_TARGET_ROUND_MS} ms)`, f(t), ''],
  ];
}

/** The realtime targets of issue 28. */
export const REALTIME_TARGETS = { createShare: 0.8, deliveryP99Ms: 50 };

export function realtimeTable(r: RealtimeFigures): string[] {
  const ms = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? 'not run' : `${n.toFixed(1)} ms`);
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  const share = r.attached.rps / r.detached.rps;
  return table([
    [`realtime and batch (${r.subscribers.toLocaleString('en')} subscribers on posts/*)`, 'value', 'target'],
    [`one create delivered to the last subscriber, p50 / p99 (${r.creates} creates)`, `${ms(r.deliveryP50)} / ${ms(r.deliveryP99)}`, `p99 ≤ ${REALTIME_TARGETS.deliveryP99Ms} ms`],
    [`while creating (10 connections): record created → the last subscriber has it, p50 / p99 (${r.loaded.events} events)`, `${ms(r.loaded.p50)} / ${ms(r.loaded.p99)}`, `p99 ≤ ${REALTIME_TARGETS.deliveryP99Ms} ms`],
    ['while creating: record created → the first subscriber has it, p50 / p99', `${ms(r.loaded.firstP50)} / ${ms(r.loaded.firstP99)}`, ''],
    ['while creating, on the server\'s side: record created → its write to the last subscriber done, p50 / p99', r.server === null ? 'not run' : `${ms(r.server.delivered.p50)} / ${ms(r.server.delivered.p99)}`, `p99 ≤ ${REALTIME_TARGETS.deliveryP99Ms} ms`],
    ['  its parts, p50 / p99: created → committed; → queued on the streams; → its round\'s start; the round', r.server === null ? '' : [r.server.committed, r.server.fannedOut, r.server.roundWait, r.server.round].map((x) => `${ms(x.p50)} / ${ms(x.p99)}`).join('; '), ''],
    ['  rounds a second; writes per round; CPU per round, user + system (of it the event loop\'s own thread, the rest other threads\')', r.server === null ? '' : `${r.server.roundsPerSecond.toFixed(1)}; ${r.server.writesPerRound.toFixed(0)}; ${(r.server.roundUserUs / 1000).toFixed(2)} + ${(r.server.roundSystemUs / 1000).toFixed(2)} ms (${(r.server.roundThreadUs / 1000).toFixed(2)} ms) (${r.server.skipped} streams skipped)`, ''],
    ...floorRows(r),
    ['while creating: reads a second per subscriber (the server\'s rounds at most: a late reader takes several in one read)', r.loaded.readsPerSubscriberPerSecond.toFixed(1), ''],
    ['create rate, subscribers attached / none (10 connections)', `${r.attached.rps.toFixed(0)}/s / ${r.detached.rps.toFixed(0)}/s (${(100 * share).toFixed(0)}%)`, `≥ ${100 * REALTIME_TARGETS.createShare}%`],
    ['create p50 latency, subscribers attached / none', `${ms(r.attached.p50)} / ${ms(r.detached.p50)}`, ''],
    ['server CPU µs per create, subscribers attached / none', `${r.cpu.attached.serverUsPerCreate.toFixed(0)} / ${r.cpu.detached.serverUsPerCreate.toFixed(0)} (${(100 * r.cpu.detached.serverUsPerCreate / r.cpu.attached.serverUsPerCreate).toFixed(0)}%)`, `≥ ${100 * REALTIME_TARGETS.createShare}%`],
    ['  of which system (kernel) µs, attached / none', `${r.cpu.attached.serverSystemUsPerCreate.toFixed(0)} / ${r.cpu.detached.serverSystemUsPerCreate.toFixed(0)}`, ''],
    ['  of which the main thread (the event loop), all / system µs, attached; none', `${r.cpu.attached.serverMainUsPerCreate.toFixed(0)} / ${r.cpu.attached.serverMainSystemUsPerCreate.toFixed(0)}; ${r.cpu.detached.serverMainUsPerCreate.toFixed(0)} / ${r.cpu.detached.serverMainSystemUsPerCreate.toFixed(0)}`, ''],
    ['CPU while creating, attached (of one core): server / subscriber process / load generator', `${pct(r.cpu.attached.server)} / ${pct(r.cpu.attached.subscribers)} / ${pct(r.cpu.attached.runner)}`, ''],
    ['CPU while creating, none (of one core): server / subscriber process / load generator', `${pct(r.cpu.detached.server)} / ${pct(r.cpu.detached.subscribers)} / ${pct(r.cpu.detached.runner)}`, ''],
    ['event loops while creating, attached (worst slice): server; subscriber process; load generator', `${loopLine(r.loops.attached.server)}; ${loopLine(r.loops.attached.subscribers)}; ${loopLine(r.loops.attached.runner)}`, ''],
    ['event loops while creating, none (worst slice): server; subscriber process; load generator', `${loopLine(r.loops.detached.server)}; ${loopLine(r.loops.detached.subscribers)}; ${loopLine(r.loops.detached.runner)}`, ''],
    ['cores', r.pinning, ''],
    [`${r.idle.subscribers.toLocaleString('en')} idle subscribers: server RSS before → after (per subscriber)`, `${(r.idle.rssBeforeBytes / 2 ** 20).toFixed(0)} → ${(r.idle.rssAfterBytes / 2 ** 20).toFixed(0)} MB (${(r.idle.rssPerSubscriber / 1024).toFixed(1)} KB)`, 'bounded'],
    [`one create delivered to the last of ${r.idle.subscribers.toLocaleString('en')}`, ms(r.idle.deliveryMs), ''],
    ['50 creates: one batch / 50 single requests in a row (median)', `${ms(r.batchMs)} / ${ms(r.singlesMs)}`, ''],
  ]);
}
