// The sign-in block: per account, at most MAX_FAILURES failed password checks in FAILURE_WINDOW_MS.
// Every check of an account's password a client drives counts against it: sign-in (sign-in.ts) and an
// update's `oldPassword` (writes/auth-record.ts), through one limiter per server (core/index.ts).
// Two implementations of one interface (SignInBlock): the desktop's in memory (FailureLimiter), and the
// team server's in the database (StoreFailureLimiter, table `_signInFailures`), shared by every node.
import type { Store } from '../store/contract.js';

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

/** What sign-in and `oldPassword` ask of the block (either implementation below). */
export interface SignInBlock {
  /**
   * One password check of account `key`: `check` runs when the account is not blocked, `blocked` (which
   * must cost what a check does) when it is, and the answer is then false, as for a wrong password.
   * A check that throws (a 429 before any hash) counts as no failure.
   */
  attempt(key: string, check: () => Promise<boolean>, blocked: () => Promise<void>): Promise<boolean>;
}

/**
 * SignInBlock.attempt, for either limiter: the attempt is reserved as the call starts (the memory
 * limiter's synchronously, before any await: concurrent checks cannot all read the count first), then
 * `blocked` runs if none was, `check` if one was, and the attempt is settled whatever `check` does.
 */
async function attemptWith<A>(
  reserve: () => A | null | Promise<A | null>, settle: (attempt: A, ok: boolean | null) => void | Promise<void>,
  check: () => Promise<boolean>, blocked: () => Promise<void>,
): Promise<boolean> {
  const attempt = await reserve();
  if (attempt === null) {
    await blocked();
    return false;
  }
  let ok: boolean | null = null;
  try {
    ok = await check();
  } finally {
    await settle(attempt, ok);
  }
  return ok;
}

/**
 * Ten failures for one account within 15 minutes block it for the rest of that window. An attempt is
 * reserved before its (asynchronous) password check and counts as a failure until it succeeds, so at
 * most ten checks run per account per window however many attempts arrive at once; the next one is
 * refused without checking. A success starts the count again.
 */
export class FailureLimiter implements SignInBlock {
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
  attempt(key: string, check: () => Promise<boolean>, blocked: () => Promise<void>): Promise<boolean> {
    return attemptWith(() => this.reserve(key), (attempt, ok) => this.settle(attempt, ok), check, blocked);
  }

  private prune(t: number): void {
    for (const [k, w] of this.windows) if (t - w.start >= FAILURE_WINDOW_MS && w.pending === 0) this.windows.delete(k);
  }
}


/**
 * The sign-in block in the database, for a team server: every node counts against the same rows, so
 * ten failed checks split across nodes block the eleventh on any of them.
 *
 * One row per account window: `start` (ms), `reserved` (attempts reserved in the window, numbered 1, 2,
 * ...) and `forgiven` (attempts up to this number no longer count). An account's count is
 * `reserved - forgiven`. Each attempt is ONE atomic upsert before its check (`reserve`): it opens a new
 * window when the old one has closed, and otherwise takes number `reserved + 1` only while the count is
 * under MAX_FAILURES; PostgreSQL locks the row for the statement, so parallel attempts on several nodes
 * count exactly. A reserved attempt counts as a failure from then on: a wrong password writes nothing
 * more. A right one forgives every attempt numbered up to its own (one UPDATE); one never checked (a 429
 * before its hash) forgives one. As the memory limiter, a success resets the count and attempts reserved
 * after it still count; unlike it, attempts reserved before the success but still running when it lands
 * are forgiven with it (which only a right password can cause). Rows of closed windows are deleted, at
 * most once a minute per node, inside a reservation's transaction.
 */
export class StoreFailureLimiter implements SignInBlock {
  private lastPrune = Number.NEGATIVE_INFINITY;
  constructor(private readonly store: Store, private readonly now: () => number = Date.now) {}

  /** Reserves one attempt: its window and number, or null when the account is blocked. */
  async reserve(key: string): Promise<{ key: string; start: number; n: number } | null> {
    const t = this.now();
    const prune = t - this.lastPrune >= PRUNE_EVERY_MS;
    if (prune) this.lastPrune = t;
    const row = await this.store.write(async (tx) => {
      if (prune) await tx.run(`DELETE FROM ${T} WHERE ? - "start" >= ${FAILURE_WINDOW_MS}`, [t]);
      return tx.get<{ start: number; reserved: number }>(RESERVE, [key, t]);
    });
    return row ? { key, start: Number(row.start), n: Number(row.reserved) } : null;
  }

  /** Settles a reserved attempt (`ok` as for FailureLimiter.settle); a failure writes nothing. */
  async settle(attempt: { key: string; start: number; n: number }, ok: boolean | null): Promise<void> {
    if (ok === false) return;
    const { key, start, n } = attempt;
    const where = 'WHERE "key" = ? AND "start" = ? AND "forgiven" < ?';
    await this.store.write((tx) => ok
      ? tx.run(`UPDATE ${T} SET "forgiven" = ? ${where}`, [n, key, start, n])
      : tx.run(`UPDATE ${T} SET "forgiven" = "forgiven" + 1 ${where}`, [key, start, n]));
  }

  attempt(key: string, check: () => Promise<boolean>, blocked: () => Promise<void>): Promise<boolean> {
    return attemptWith(() => this.reserve(key), (attempt, ok) => this.settle(attempt, ok), check, blocked);
  }
}

/** How often a node deletes the rows of closed windows (with a reservation). */
const PRUNE_EVERY_MS = 60 * 1000;

const T = '"_signInFailures"';
const CLOSED = `excluded."start" - ${T}."start" >= ${FAILURE_WINDOW_MS}`;
/** One attempt's reservation: a row for a new account or window, or the next number while under the limit. */
const RESERVE = `INSERT INTO ${T} ("key", "start", "reserved", "forgiven") VALUES (?, ?, 1, 0)
  ON CONFLICT ("key") DO UPDATE SET
    "start" = CASE WHEN ${CLOSED} THEN excluded."start" ELSE ${T}."start" END,
    "reserved" = CASE WHEN ${CLOSED} THEN 1 ELSE ${T}."reserved" + 1 END,
    "forgiven" = CASE WHEN ${CLOSED} THEN 0 ELSE ${T}."forgiven" END
  WHERE ${CLOSED} OR ${T}."reserved" - ${T}."forgiven" < ${MAX_FAILURES}
  RETURNING "start", "reserved"`;
