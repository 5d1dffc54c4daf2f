// The fan-out's two lanes (fan-out.ts), driven in slices of the event loop: the first lane for half of
// a slice, the second for the rest, then the first again, one slice at a time, the next one on a later
// turn while either lane has work. A lane is an async generator that yields between steps of its work.

export interface Lanes {
  first: () => AsyncGenerator<void>;
  second: () => AsyncGenerator<void>;
  /** Whether a lane has work queued that no running generator holds yet. */
  firstHasWork: () => boolean;
  secondHasWork: () => boolean;
  /** Hears a lane that threw (both lanes then start over from their queues). */
  report: (error: unknown) => void;
  /**
   * A lane threw because the database cannot be reached right now (a team server's failover): the
   * change it was delivering stays queued and the slices start again after `retryMs`, instead of
   * dropping it. Answers whether the error is such a one.
   */
  unavailable?: (error: unknown) => boolean;
  /** A lane threw for another reason: the change it was delivering is dropped (reported). */
  failed?: (lane: 'first' | 'second') => void;
}

/** How long delivery waits before trying again while the database cannot be reached. */
export const RETRY_UNAVAILABLE_MS = 250;

export class LaneSlices {
  private first: AsyncGenerator<void> | null = null;
  private second: AsyncGenerator<void> | null = null;
  /** Set from a slice's scheduling until it ends: one slice runs at a time. */
  private scheduled = false;

  constructor(
    private readonly lanes: Lanes,
    private readonly sliceMs: number,
  ) {}

  /** Nothing running, nothing scheduled (the queues' emptiness is the caller's to check). */
  get idle(): boolean {
    return this.first === null && this.second === null && !this.scheduled;
  }

  /** Forgets a lane's running generator (its queue was emptied); the next step starts it afresh. */
  drop(lane: 'first' | 'second'): void {
    if (lane === 'first') this.first = null;
    else this.second = null;
  }

  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.run());
  }

  /** One step of a lane; false once it has nothing left. */
  private async step(lane: 'first' | 'second'): Promise<boolean> {
    if (lane === 'first') {
      if (this.first === null && !this.lanes.firstHasWork()) return false;
      const running = (this.first ??= this.lanes.first());
      if ((await running.next()).done && this.first === running) this.first = null;
      return true;
    }
    if (this.second === null && !this.lanes.secondHasWork()) return false;
    const running = (this.second ??= this.lanes.second());
    if ((await running.next()).done && this.second === running) this.second = null;
    return true;
  }

  /**
   * A slice: the first lane for half of it, the second lane for the rest, then the first again. Its
   * clock counts the whole slice, the time its queries waited for a write transaction included.
   */
  private async run(): Promise<void> {
    const start = performance.now();
    const half = start + this.sliceMs / 2;
    const end = start + this.sliceMs;
    let lane: 'first' | 'second' = 'first';
    try {
      let busy = true;
      while (busy && performance.now() < half) busy = await this.step('first');
      busy = true;
      lane = 'second';
      while (busy && performance.now() < end) busy = await this.step('second');
      busy = true;
      lane = 'first';
      while (busy && performance.now() < end) busy = await this.step('first');
    } catch (err) {
      this.first = null;
      this.second = null;
      if (this.lanes.unavailable?.(err) === true) {
        // nothing is lost: the change stays at the head of its queue, tried again in a moment
        setTimeout(() => {
          this.scheduled = false;
          this.schedule();
        }, RETRY_UNAVAILABLE_MS);
        return;
      }
      this.lanes.failed?.(lane);
      this.lanes.report(err);
    }
    this.scheduled = false;
    if (this.first !== null || this.second !== null || this.lanes.firstHasWork() || this.lanes.secondHasWork()) this.schedule();
  }
}
