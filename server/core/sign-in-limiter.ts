// The sign-in block: per account, at most MAX_FAILURES failed password checks in FAILURE_WINDOW_MS.
export const MAX_FAILURES = 10;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;

interface Window {
  start: number;
  /** Failed attempts counted in this window. */
  failures: number;
  /** Attempts whose password check is under way: they count as failures until they succeed. */
  pending: number;
}

/** An attempt reserved before its password is checked. */
export interface Attempt {
  key: string;
  window: Window;
}

/**
 * Ten failures for one account within 15 minutes block it for the rest of that window. An attempt is
 * reserved before its (asynchronous) password check and counts as a failure until it succeeds, so at
 * most ten checks run per account per window however many attempts arrive at once; the next one is
 * refused without checking. A success starts the count again.
 */
export class FailureLimiter {
  private windows = new Map<string, Window>();
  constructor(private now: () => number = Date.now) {}

  /** Reserves one attempt, or null when the account is blocked. */
  reserve(key: string): Attempt | null {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= FAILURE_WINDOW_MS) {
      w = { start: t, failures: 0, pending: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 100_000) this.prune(t);
    }
    if (w.failures + w.pending >= MAX_FAILURES) return null;
    w.pending++;
    return { key, window: w };
  }

  /**
   * Settles a reserved attempt; `null` when its password was never checked (refused before its hash,
   * a 429 under load), which only frees the reservation. Attempts of a window that has since closed
   * change nothing.
   */
  settle(attempt: Attempt, ok: boolean | null): void {
    const w = attempt.window;
    w.pending--;
    if (this.windows.get(attempt.key) !== w || ok === null) return;
    if (ok) w.failures = 0;
    else w.failures++;
  }

  private prune(t: number): void {
    for (const [k, w] of this.windows) if (t - w.start >= FAILURE_WINDOW_MS && w.pending === 0) this.windows.delete(k);
  }
}

