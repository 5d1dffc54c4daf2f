// The realtime floor: the least any server must do to fan events out to the bench's 1,000 SSE
// subscribers (bench/subscribers.ts, the same process and the same reading), as bench/floor.ts is for
// reads. A bare node:http server, no Deskbase: GET /api/realtime answers the stream's head and
// PB_CONNECT, POST /api/realtime answers 204 (the subscribers' handshake), and from then on the
// server makes events at the rate it is told (each a frame of the size Deskbase's events have, with
// `created` its time) and writes them in rounds at the rate it is told: per round one Buffer (the
// round's frames joined once) and one socket.write of it per subscriber, nothing else. No rules, no
// queue bounds, no fan-out, no database. Run in the bench's server child (bench/child.ts), pinned as
// Deskbase is (bench/pin.ts), so its CPU per round, user and system, is the setting's: what 1,000
// loopback writes of that size cost a process on one core while the readers run on the other.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { threadCpuUs } from '../server/core/realtime/trace.js';
import { listenBare } from './ceiling.js';

/** What a floor run writes: as many events and rounds a second as Deskbase's run saw, frames of its size. */
export interface FloorRates {
  eventsPerSecond: number;
  roundsPerSecond: number;
  /** Bytes of one event's frame (`event:` and `data:` lines). */
  eventBytes: number;
  seconds: number;
}

/**
 * A floor run's figures. CPU is the process's (getrusage) around each round's writes, as Deskbase's
 * trace takes it. Each round writes the rates' share of events (events a second / rounds a second),
 * however late it runs; a process kept off its core runs fewer rounds (`rounds` / `seconds` says).
 */
export interface FloorRun {
  seconds: number;
  rounds: number;
  events: number;
  writes: number;
  /** Sockets still holding their last write, skipped for the round (as Deskbase skips them). */
  skipped: number;
  /** Per round, µs. */
  roundUserUs: number;
  roundSystemUs: number;
  /** Of it, the loop's own thread's per round (schedstat, as Deskbase's trace reads it), µs. */
  roundThreadUs: number;
  /** The process's whole CPU over the run (the rounds and everything between them), a share of one core. */
  cpuShare: number;
  /** Of that, per round: user and system µs (the rounds' writes plus the wake-ups, timers and ACKs between them). */
  wholeUserUsPerRound: number;
  wholeSystemUsPerRound: number;
}

const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=UTF-8\r\ncache-control: no-store\r\nconnection: close\r\n\r\n';

/** PocketBase's datetime form (`2026-11-27 08:20:46.123Z`), what the subscribers read `created` from. */
const pbDate = (ms: number) => new Date(ms).toISOString().replace('T', ' ');

/** One event's frame, `bytes` long, with `created` at `at` (epoch ms): a record's JSON padded to size. */
export function floorFrame(at: number, n: number, bytes: number): Buffer {
  const head = `event:posts/*\ndata:{"action":"create","record":{"id":"f${String(n).padStart(14, '0')}","collectionName":"posts","created":"${pbDate(at)}","updated":"${pbDate(at)}","body":"`;
  const tail = '"}}\n\n';
  return Buffer.from(head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail);
}

export async function startRealtimeFloor(): Promise<{ server: Server; url: string; run: (rates: FloorRates) => Promise<FloorRun> }> {
  const streams: Socket[] = [];
  let ids = 0;
  const server = createServer((req, res) => {
    if (req.url === '/api/realtime' && req.method === 'GET') {
      const socket = req.socket;
      socket.setTimeout(0);
      const id = `c${++ids}`;
      // the head and PB_CONNECT straight to the socket: the body is close-delimited, as Deskbase's
      socket.write(`${HEAD}id:${id}\nevent:PB_CONNECT\ndata:{"clientId":"${id}"}\n\n`);
      streams.push(socket);
      socket.on('close', () => {
        const i = streams.indexOf(socket);
        if (i >= 0) streams.splice(i, 1);
      });
      socket.on('error', () => undefined);
      return;
    }
    if (req.url === '/api/realtime' && req.method === 'POST') {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
      return;
    }
    res.writeHead(404).end();
  });
  const { url } = await listenBare(server);

  const run = (rates: FloorRates): Promise<FloorRun> => new Promise((resolve) => {
    const interval = 1000 / rates.roundsPerSecond;
    const start = Date.now();
    const end = start + rates.seconds * 1000;
    const cpuStart = process.cpuUsage();
    let events = 0;
    let rounds = 0;
    let beats = 0;
    let writes = 0;
    let skipped = 0;
    let user = 0;
    let system = 0;
    let thread = 0;
    let next = performance.now() + interval;
    const perRound = rates.eventsPerSecond / rates.roundsPerSecond;
    const round = () => {
      const now = Date.now();
      // the round's events (the rates' share of them, however late the round: its writes are of the
      // rates' size), each `created` at its own moment of the rate
      const due = Math.floor(++beats * perRound);
      const frames: Buffer[] = [];
      for (; events < due; events++) frames.push(floorFrame(start + (1000 * events) / rates.eventsPerSecond, events, rates.eventBytes));
      if (frames.length > 0) {
        const threadAtStart = threadCpuUs();
        const cpu = process.cpuUsage();
        const chunk = Buffer.concat(frames);
        for (const socket of streams) {
          if (socket.writableLength > 0) skipped++;
          else {
            socket.write(chunk);
            writes++;
          }
        }
        const used = process.cpuUsage(cpu);
        user += used.user;
        system += used.system;
        thread += threadCpuUs() - threadAtStart;
        rounds++;
      }
      if (now >= end) {
        const whole = process.cpuUsage(cpuStart);
        const seconds = (Date.now() - start) / 1000;
        const per = (x: number) => x / Math.max(1, rounds);
        resolve({
          seconds, rounds, events, writes, skipped, roundUserUs: per(user), roundSystemUs: per(system), roundThreadUs: per(thread),
          cpuShare: (whole.user + whole.system) / 1e6 / seconds, wholeUserUsPerRound: per(whole.user), wholeSystemUsPerRound: per(whole.system),
        });
        return;
      }
      // rounds on a fixed beat (a late one does not move the ones after it)
      next += interval;
      setTimeout(round, Math.max(0, next - performance.now()));
    };
    setTimeout(round, interval);
  });
  return { server, url, run };
}
