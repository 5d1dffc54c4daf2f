// The sign-in block: per account, at most MAX_FAILURES failed password checks in FAILURE_WINDOW_MS.
// Every check of an account's password a client drives counts against it: sign-in (sign-in.ts) and an
// update's `oldPassword` (writes/auth-record.ts), through one limiter per server (core/index.ts).
export const MAX_FAILURES = 10;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;

interface Window {
  start: number;
  /** Failed attempts counted in this window. */
  failures: number;
  /** Attempts whose password check is under way: they count as failures until they succeed. */
  pending: number;
}

/** The limiter's key for an account of collection `c` (an unknown identity's key stands for it). */
export const accountKey = (c: { id: string }, recordIdOrIdentity: string): string => `${c.id}/${recordIdOrIdentity}`;

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

  /**
   * One password check of account `key`: `check` runs when the account is not blocked, `blocked` (which
   * must cost what a check does) when it is, and the answer is then false, as for a wrong password.
   * A check that throws (a 429 before any hash) counts as no failure.
   */
  async attempt(key: string, check: () => Promise<boolean>, blocked: () => Promise<void>): Promise<boolean> {
    const attempt = this.reserve(key); // before any await: concurrent checks cannot all read the count first
    if (!attempt) {
      await blocked();
      return false;
    }
    let ok: boolean | null = null;
    try {
      ok = await check();
    } finally {
      this.settle(attempt, ok);
    }
    return ok;
  }

  private prune(t: number): void {
    for (const [k, w] of this.windows) if (t - w.start >= FAILURE_WINDOW_MS && w.pending === 0) this.windows.delete(k);
  }
}

