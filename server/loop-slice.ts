// A leaf: long work on the event loop, cut into slices so that other requests are answered between
// them (issue 28: no stretch over 250 ms). The one owner of "a turn of the loop" and of how long a
// piece of work may hold the loop before it gives a turn: a records import's inserts, a truncate's
// deletes, a table rebuilt by a schema change, a PocketBase import's copy, a restore's checks.

/**
 * Rows from which a write is long enough (a second or so) that reads from outside should not wait for
 * it: it asks its transaction to keep them going (store `WriteTx.keepReadsGoing`) before changing anything.
 */
export const LONG_WRITE_ROWS = 5000;

/** How long one stretch of such work may hold the loop before it lets others run (ms). */
export const SLICE_MS = 20;

/** One turn of the event loop: pending I/O (other requests) runs before the promise settles. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The clock of one piece of long work. `pause()` gives a turn of the loop once the work has held it
 * for `sliceMs` since its last turn. A loop over many small steps asks `due` first
 * (`if (slice.due) await slice.pause()`): awaiting a settled promise per step made a truncate of 30k
 * records a third slower.
 */
export class LoopSlice {
  private since = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Whether the work has held the loop for its slice. */
  get due(): boolean {
    return performance.now() - this.since >= this.sliceMs;
  }

  async pause(): Promise<void> {
    if (!this.due) return;
    await nextTurn();
    this.since = performance.now();
  }
}
