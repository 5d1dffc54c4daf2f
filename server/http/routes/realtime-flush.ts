// When realtime messages reach the sockets. A message is queued on its stream at once (the fan-out,
// core/realtime/, decides who gets what and in which order); the streams with something queued are
// written in rounds, each stream's queued messages as one chunk, so one socket write carries every
// message that came for it since its last one. A round is split into slices of the loop (a few
// milliseconds each) and the next round starts no sooner than the rounds' share of the loop allows:
// while writes come one at a time a message leaves within a turn or two, and under a burst of writes
// 1,000 subscribers cost one write each per round, not one per message, so writers keep their pace.
// Two things start a round before its wait is over: the loop going idle (nothing else wants it: the
// round costs no one anything), and the oldest waiting message's deadline (`deliveryMs` from its
// change's commit reaching the fan-out: it is written by then, the last round's length allowed for),
// so a long wait under load does not make the last subscriber late.
import { performance } from 'node:perf_hooks';
import type { RealtimeTrace } from '../../core/realtime/trace.js';
import { epochNow, threadCpuUs } from '../../core/realtime/trace.js';

/** A stream with messages queued (realtime-api.ts). */
export interface Flushable {
  /** Set by the flusher while the stream waits for a round. */
  waiting: boolean;
  /** Writes what is queued as one chunk: whether it wrote, found nothing, or skipped a socket still holding its last write. */
  flush(): FlushResult;
}

export type FlushResult = 'written' | 'empty' | 'skipped';

export interface FlushOptions {
  /** The longest synchronous stretch of a round, in the process's CPU time (ms; 4× that of wall time at most). */
  sliceMs: number;
  /** The share of the loop the rounds may take: after a round of `t` ms of CPU, the next waits `t × (1 / share - 1)`. */
  share: number;
  /** The longest wait between two rounds (ms), whatever the last one cost. */
  maxWaitMs: number;
  /**
   * From the oldest waiting message's commit reaching the fan-out (`mark`'s since; its queuing when
   * none is given) to its write (ms): the next round starts in time for it, the last round's length (its
   * slices and the loop's work between them) counted in, unless that would give the rounds more than
   * `deadlineShare` of the loop. A fan-out late to queue a message (a busy loop) leaves it less wait.
   */
  deliveryMs: number;
  /**
   * The most of the loop rounds started by a deadline may take: after a round of `t` ms, the next waits
   * at least `t × (1 / deadlineShare - 1)`, or maxWaitMs when that is less. Where rounds are that slow (a machine whose cores are taken
   * by other work) a deadline cannot be met, and rounds back to back would only write fewer messages
   * per write and leave the writers less of the loop.
   */
  deadlineShare: number;
}

/**
 * 35 ms from a first waiting message to its write leaves a 50 ms delivery (record created → the last of
 * 1,000 subscribers has it) its commit and the reading.
 */
export const FLUSH_OPTIONS: Readonly<FlushOptions> = { sliceMs: 4, share: 0.2, maxWaitMs: 40, deliveryMs: 35, deadlineShare: 0.4 };

/**
 * The loop's utilization since the last round under which the next one starts before its wait is over:
 * the loop has mostly sat idle, nothing else wants it.
 */
const IDLE_UTILIZATION = 0.5;
/** A slice's wall-clock backstop, in slices' CPU: `sliceMs × 4` of time, however little CPU it got. */
const SLICE_WALL_FACTOR = 4;

const cpuUs = (u: NodeJS.CpuUsage): number => u.user + u.system;

/** While a round waits, how often it looks whether the loop went idle (ms). */
const IDLE_POLL_MS = 2;

export class RealtimeFlusher {
  /** Streams waiting for the next round, in the order their first message came. */
  private queued: Flushable[] = [];
  /** When the current round started (Date.now()): its writes' time for the clients' idle timers. */
  roundAt = 0;
  /** The round being written, and how far it got. */
  private round: Flushable[] = [];
  private at = 0;
  /** Milliseconds of CPU the current round has taken so far. */
  private cost = 0;
  /** The next round starts no sooner than this (performance.now()), unless the loop is idle or a deadline comes first. */
  private earliest = 0;
  /** Not even a deadline starts the next round sooner than this (`deadlineShare`). */
  private soonest = 0;
  /** The earliest deadline start (`mark`'s since) of the streams waiting for the next round (performance.now()). */
  private queuedSince = 0;
  /** When the current round started, and how long the last one took from its start to its end (ms). */
  private roundStart = 0;
  private lastRoundMs = 0;
  /** The loop's idle and busy time when the last round ended. */
  private loopAtRoundEnd = performance.eventLoopUtilization();
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;

  /** The current round's streams written and skipped, and its CPU (µs, user and system), while a trace is on. */
  private written = 0;
  private skipped = 0;
  private userUs = 0;
  private systemUs = 0;
  /** Of it, the loop's own thread's (user and system), while a trace is on. */
  private threadUs = 0;

  /**
   * `onRound` is told as each round starts (realtime-frames.ts starts its tree afresh); `trace` says
   * where the rounds are noted, when a bench asks (core/realtime/trace.ts).
   */
  constructor(
    private readonly options: Readonly<FlushOptions> = FLUSH_OPTIONS,
    private readonly onRound: () => void = () => undefined,
    private readonly trace: () => RealtimeTrace | null = () => null,
  ) {}

  /**
   * A stream has something new queued: it is written in the next round. `since`: when the message's
   * deadline started (its change's commit reaching the fan-out; now by default): a message the fan-out
   * was late to queue is written sooner.
   */
  mark(stream: Flushable, since?: number): void {
    // a stream already waiting (every member of a group handed over in a round) costs one test
    if (stream.waiting) return;
    stream.waiting = true;
    since ??= performance.now();
    // a waiting round looks at its deadline again every IDLE_POLL_MS
    if (this.queued.length === 0 || since < this.queuedSince) this.queuedSince = since;
    this.queued.push(stream);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== null || this.immediate !== null) return;
    let wait = 0;
    if (this.at >= this.round.length) {
      const now = performance.now();
      // the oldest waiting message's deadline, the last round's length allowed for
      const due = this.queuedSince + this.options.deliveryMs - this.lastRoundMs;
      wait = Math.max(this.soonest, Math.min(this.earliest, due)) - now;
    }
    if (wait <= 0 || performance.eventLoopUtilization(this.loopAtRoundEnd).utilization < IDLE_UTILIZATION) {
      this.immediate = setImmediate(() => this.run());
      return;
    }
    // looked at again in a moment: the wait ends, or the loop goes idle first
    this.timer = setTimeout(() => {
      this.timer = null;
      this.schedule();
    }, Math.min(wait, IDLE_POLL_MS));
  }

  /** One slice: a round's streams until the slice is spent; a finished round sets when the next may start. */
  private run(): void {
    this.timer = this.immediate = null;
    const start = performance.now();
    if (this.at >= this.round.length) {
      this.round = this.queued;
      this.queued = [];
      this.at = 0;
      this.cost = 0;
      this.written = this.skipped = this.userUs = this.systemUs = this.threadUs = 0;
      this.roundStart = start;
      this.roundAt = Date.now();
      this.onRound();
    }
    // a slice counts the CPU it takes, not the time that passes: a process kept off its core by other
    // work still writes a slice's worth (a round spread over many short slices reaches its last
    // subscriber late); the wall clock stops it only far past that. The CPU clock (getrusage, the
    // whole process's) is read only once the slice's time has passed: the loop's own thread cannot
    // have taken more CPU than that before, and other threads' CPU does not end its slice sooner. Nor
    // can its thread take CPU faster than time passes, so a slice found short of its CPU is looked at
    // again only once the time it lacks has passed, not every 16 streams (a getrusage is ~0.7 µs)
    const trace = this.trace();
    const threadAtStart = trace === null ? 0 : threadCpuUs();
    const cpuAtStart = process.cpuUsage();
    const sliceUs = this.options.sliceMs * 1000;
    let sliceEnd = start + this.options.sliceMs;
    const wallEnd = start + this.options.sliceMs * SLICE_WALL_FACTOR;
    while (this.at < this.round.length) {
      const stream = this.round[this.at++];
      // still waiting while it is written: what its write takes with it (a group's run handed over to
      // it, realtime-streams.ts) does not queue it again for a round with nothing to write
      const result = stream.flush();
      stream.waiting = false;
      if (trace !== null) {
        if (result === 'written') this.written++;
        else if (result === 'skipped') this.skipped++;
      }
      // the clock is read every 16 streams: a write costs a few microseconds
      if ((this.at & 15) === 0) {
        const now = performance.now();
        if (now >= wallEnd) break;
        if (now >= sliceEnd) {
          const usedUs = cpuUs(process.cpuUsage(cpuAtStart));
          if (usedUs >= sliceUs) break;
          sliceEnd = now + (sliceUs - usedUs) / 1000;
        }
      }
    }
    const now = performance.now();
    const used = process.cpuUsage(cpuAtStart);
    this.cost += cpuUs(used) / 1000;
    this.userUs += used.user;
    this.systemUs += used.system;
    if (trace !== null) this.threadUs += threadCpuUs() - threadAtStart;
    if (this.at >= this.round.length) {
      const { share, maxWaitMs, deadlineShare } = this.options;
      this.earliest = now + Math.min(maxWaitMs, this.cost * (1 / share - 1));
      // the cap holds for it too: a round that cost more than the cap allows for is not followed later
      this.soonest = now + Math.min(maxWaitMs, this.cost * (1 / deadlineShare - 1));
      this.lastRoundMs = now - this.roundStart;
      this.loopAtRoundEnd = performance.eventLoopUtilization();
      if (trace !== null) {
        const end = epochNow();
        trace.round(end - (now - this.roundStart), end, this.written, this.skipped, this.userUs, this.systemUs, this.threadUs);
      }
    }
    if (this.at < this.round.length || this.queued.length > 0) this.schedule();
  }
}
