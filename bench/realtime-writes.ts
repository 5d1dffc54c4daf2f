// Deskbase's round of realtime writes against the floor's loop, over the same sockets in one process:
// N loopback connections read by a child process (pinned to the other core where taskset can), and
// rounds of E events of B bytes each to all of them, in turn: the floor's round (one Buffer joined, one
// socket.write per socket, as bench/realtime-floor.ts) and Deskbase's (each event to the whole group
// through StreamGroups, then the flusher's round over the EventStreams, http/routes/realtime-streams.ts),
// and with --against, the same through another commit's streams. Each round's CPU is taken as the
// bench's trace takes it (core/realtime/trace.ts: the process's around the writes, and the loop's
// thread's), and with what follows it (node's write callbacks and 'drain' events, on the next ticks):
// what Deskbase does per subscriber beyond the socket write shows apart from the kernel's part, which
// all share, without the creates' work that interleaves with a server's rounds.
//
//   npx tsx bench/realtime-writes.ts [--subscribers 1000] [--events 40] [--bytes 500] [--rounds 40]
//                                    [--against COMMIT]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { RealtimeBroker, type RealtimeClient, type RealtimeMessage } from '../server/core/realtime/broker.js';
import { RealtimeTrace, threadCpuUs } from '../server/core/realtime/trace.js';
import * as here from '../server/http/routes/realtime-streams.js';
import { floorFrame } from './realtime-floor.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const READER = `
const net = require('node:net');
const [port, n] = process.argv.slice(1).map(Number);
const buf = Buffer.alloc(1 << 16);
let open = 0;
for (let i = 0; i < n; i++) {
  const s = net.connect({ port, host: '127.0.0.1', onread: { buffer: buf, callback: () => true } });
  s.on('connect', () => { if (++open === n) process.send('ready'); });
  s.on('error', () => undefined);
}
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tick = () => new Promise((r) => setImmediate(r));

/** One round's figures, µs: process CPU (user + system), the loop's thread, with the ticks after it; and its writes. */
type Round = [cpu: number, thread: number, whole: number, writes: number];

/** A way to write a round to every socket. */
interface Writer {
  name: string;
  round(frames: Buffer[]): Promise<Round>;
}

function floorWriter(sockets: Socket[]): Writer {
  return {
    name: 'floor',
    async round(frames) {
      const whole = process.cpuUsage();
      const chunk = Buffer.concat(frames);
      const thread = threadCpuUs();
      const cpu = process.cpuUsage();
      let writes = 0;
      for (const socket of sockets) {
        if (socket.writableLength > 0) continue;
        socket.write(chunk);
        writes++;
      }
      const used = process.cpuUsage(cpu);
      const t = threadCpuUs() - thread;
      await tick(); // the writes' callbacks and 'drain' events run on the next ticks
      const all = process.cpuUsage(whole);
      return [used.user + used.system, t, all.user + all.system, writes];
    },
  };
}

/** Deskbase's streams (this tree's, or another commit's module) over the same sockets. */
function deskbaseWriter(name: string, streams: typeof here, sockets: Socket[]): Writer {
  const broker = new RealtimeBroker();
  const trace = new RealtimeTrace();
  broker.trace = trace;
  // one slice per round: the server's rounds are sliced by CPU, each slice's writes the same
  const set = new streams.StreamSet(broker, streams.REALTIME_QUEUE_TOTAL_BYTES, { sliceMs: 10_000, share: 1, maxWaitMs: 0, deliveryMs: 0, deadlineShare: 1 });
  const clients: RealtimeClient[] = [];
  for (const socket of sockets) {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    const stream = new streams.EventStream(set, controller, streams.REALTIME_QUEUE_BYTES);
    stream.useSocket(socket);
    const client = { id: String(clients.length) } as RealtimeClient;
    set.byClient.set(client, stream);
    clients.push(client);
  }
  return {
    name,
    async round(frames) {
      const whole = process.cpuUsage();
      const before = trace.rounds.length;
      for (const frame of frames) {
        const text = frame.toString();
        const message: RealtimeMessage = { name: 'posts/*', data: text.slice(text.indexOf('data:') + 5, -2) };
        set.groups.send(clients, message);
      }
      while (trace.rounds.length === before) await tick();
      await tick();
      const all = process.cpuUsage(whole);
      const [, , written, , user, system] = trace.rounds.slice(before, before + 6);
      return [user + system, trace.roundThreads[before / 6], all.user + all.system, written];
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { subscribers: { type: 'string' }, events: { type: 'string' }, bytes: { type: 'string' }, rounds: { type: 'string' }, against: { type: 'string' } },
  });
  const n = Number(values.subscribers ?? 1000);
  const events = Number(values.events ?? 40);
  const bytes = Number(values.bytes ?? 500);
  const rounds = Number(values.rounds ?? 40);
  spawnSync('taskset', ['-pc', '0', String(process.pid)], { stdio: 'ignore' });

  let dir: string | null = null;
  try {
    let other: typeof here | null = null;
    if (values.against !== undefined) {
      // the commit's tree in a temporary folder borrowing this tree's node_modules (as bench/ab.ts does)
      dir = await mkdtemp(join(tmpdir(), 'deskbase-writes-'));
      execFileSync('tar', ['-x', '-C', dir], { input: execFileSync('git', ['-C', ROOT, 'archive', '--format=tar', values.against], { maxBuffer: 1 << 30 }) });
      await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      other = (await import(pathToFileURL(join(dir, 'server/http/routes/realtime-streams.ts')).href)) as typeof here;
    }

    const sockets: Socket[] = [];
    const server = createServer((s) => {
      s.on('error', () => undefined);
      sockets.push(s);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const reader = spawn('taskset', ['-c', '1', process.execPath, '-e', READER, String(port), String(n)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((r) => reader.once('message', () => r()));
    while (sockets.length < n) await sleep(10);

    const writers = [floorWriter(sockets), deskbaseWriter(other === null ? 'deskbase' : 'this tree', here, sockets)];
    if (other !== null) writers.push(deskbaseWriter(values.against as string, other, sockets));
    const results = writers.map(() => [] as Round[]);
    let made = 0;
    for (let r = 0; r < rounds + 2; r++) {
      // each writer in turn, from a different one each time; the readers take a round before the next
      for (let k = 0; k < writers.length; k++) {
        const i = (r + k) % writers.length;
        await sleep(60);
        const frames = Array.from({ length: events }, () => floorFrame(Date.now(), made++, bytes));
        const round = await writers[i].round(frames);
        if (r >= 2) results[i].push(round); // the first two warm up
      }
    }
    const floorThread = median(results[0].map((x) => x[1]));
    console.log(`${rounds} rounds each of ${events} events of ${bytes} bytes to ${n} subscribers; per round, ms (medians):`);
    for (const [i, w] of writers.entries()) {
      const m = (k: number) => median(results[i].map((x) => x[k])) / 1000;
      const over = i === 0 ? '' : `, the thread ${(m(1) - floorThread / 1000).toFixed(2)} over the floor's`;
      console.log(`  ${w.name.padEnd(12)} CPU ${m(0).toFixed(2)}, the loop's thread ${m(1).toFixed(2)}${over}; with the ticks after it ${m(2).toFixed(2)} (${median(results[i].map((x) => x[3]))} writes)`);
    }
    reader.kill();
    for (const s of sockets) s.destroy();
    server.close();
  } finally {
    if (dir !== null) await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
