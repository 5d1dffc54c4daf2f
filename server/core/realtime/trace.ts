// Where a realtime event's time goes on the server's side, for the bench (bench/realtime.ts): off
// (`RealtimeBroker.trace` null) unless a bench turns it on. The fan-out notes each record change's
// `created`, when its commit reached the fan-out and when its message was queued on the streams; the
// flusher (http/routes/realtime-flush.ts) notes each round of socket writes: when it started and
// ended, the streams it wrote and skipped (a socket still holding its last write), and its CPU, user
// and system. An event queued at `q` is written to its last subscriber by the end of the first round
// that starts after `q` (a member not yet written in the round under way when it came is written in
// that round, one already written in the next): that end is the event's server-side delivery, exact
// while no stream was skipped. Times are epoch milliseconds (performance.timeOrigin + now()). Beside
// the process's CPU of a round (getrusage: every thread, V8's compiler and GC helpers included), the
// event loop's own thread's (Linux's schedstat, user and system together; read only while a trace is
// on, ~14 µs a read).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** Entries kept at most per list: a bench slice of a few seconds holds far fewer. */
const MAX_ENTRIES = 200_000;

export const epochNow = (): number => performance.timeOrigin + performance.now();

export class RealtimeTrace {
  /** Per change: its record's `created`, its commit reaching the fan-out, its message queued (flattened triples). */
  readonly events: number[] = [];
  /** Per round: start, end, streams written, streams skipped, CPU µs user, CPU µs system (flattened). */
  readonly rounds: number[] = [];
  /** Per round: the CPU µs of the loop's own thread (NaN where schedstat cannot be read). */
  readonly roundThreads: number[] = [];

  /** A change's message queued on its streams: `created` (the record's, epoch ms), `committed` (performance.now()). */
  event(created: number, committed: number): void {
    if (this.events.length < 3 * MAX_ENTRIES) this.events.push(created, performance.timeOrigin + committed, epochNow());
  }

  round(start: number, end: number, written: number, skipped: number, userUs: number, systemUs: number, threadUs = NaN): void {
    if (this.rounds.length < 6 * MAX_ENTRIES) {
      this.rounds.push(start, end, written, skipped, userUs, systemUs);
      this.roundThreads.push(threadUs);
    }
  }
}

/** The calling thread's CPU time so far, µs (Linux's /proc/thread-self/schedstat); NaN where it cannot be read. */
export function threadCpuUs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1000;
  } catch {
    return NaN;
  }
}

/** A record's `created` (`2026-11-27 08:20:46.123Z`) as epoch ms; NaN when it has none. */
export function createdAt(row: Record<string, unknown> | null): number {
  const created = row?.created;
  return typeof created === 'string' ? Date.parse(created.replace(' ', 'T')) : NaN;
}
