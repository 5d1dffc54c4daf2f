// What realtime subscriptions may cost, per client, per client address and in total. A subscription
// costs memory (its text, held until the client goes) and, on every write to its collection, work per
// distinct shape: one shape is one identity with one options string (its filter, expand, fields,
// headers), and each costs a rule check and a message body per write, however many subscribers share
// it. Without bounds, a few connections with many subscriptions of distinct options made every write
// cost seconds of fan-out and held megabytes per connection. A subscribe POST over a bound is refused
// whole, and the client keeps the subscriptions it had.
import { ApiError, badRequest, fieldError } from '../../errors.js';

export interface RealtimeLimits {
  /** Distinct options strings one client may subscribe with (its shapes). */
  clientShapes: number;
  /** Subscriptions, shapes and characters of subscription text held by the clients of one address. */
  addressSubscriptions: number;
  addressShapes: number;
  addressChars: number;
  /** The same, all clients together. */
  totalSubscriptions: number;
  totalShapes: number;
  totalChars: number;
}

/**
 * A thousand subscribers of one shape (the bench's 1,000 guests on `posts/*`, from one address) fit;
 * so do an app's topics by record id with a few option sets, and the admin UI's two. What the bounds
 * leave hostile clients (test/http/realtime-hostile.test.ts): shapes with matching long filters,
 * whose fan-out checks a write pays for in slices (plus a socket write per subscription), and 2 Mi
 * characters of event names per write at most (docs/architecture.md, "Realtime").
 */
export const REALTIME_LIMITS: Readonly<RealtimeLimits> = {
  clientShapes: 32,
  addressSubscriptions: 5_000,
  addressShapes: 64,
  addressChars: 256 * 1024,
  totalSubscriptions: 20_000,
  totalShapes: 512,
  totalChars: 2 * 1024 * 1024,
};

/** What one client's subscriptions cost: their count, their characters, their distinct shapes. */
export interface Charge {
  subscriptions: number;
  chars: number;
  /** Distinct shape keys (identity and options). */
  shapes: ReadonlySet<string>;
}

export const NO_CHARGE: Charge = { subscriptions: 0, chars: 0, shapes: new Set() };

class Usage {
  subscriptions = 0;
  chars = 0;
  /** shape key → how many clients hold it */
  readonly shapes = new Map<string, number>();

  /** Distinct shapes once `current` is replaced by `next`. */
  shapesAfter(current: Charge, next: Charge): number {
    let n = this.shapes.size;
    for (const k of current.shapes) if (this.shapes.get(k) === 1 && !next.shapes.has(k)) n--;
    for (const k of next.shapes) if (!this.shapes.has(k)) n++;
    return n;
  }

  apply(current: Charge, next: Charge): void {
    this.subscriptions += next.subscriptions - current.subscriptions;
    this.chars += next.chars - current.chars;
    for (const k of next.shapes) this.shapes.set(k, (this.shapes.get(k) ?? 0) + 1);
    for (const k of current.shapes) {
      const refs = (this.shapes.get(k) ?? 0) - 1;
      if (refs <= 0) this.shapes.delete(k);
      else this.shapes.set(k, refs);
    }
  }

  get empty(): boolean {
    return this.subscriptions === 0 && this.shapes.size === 0;
  }
}

const format = (n: number) => n.toLocaleString('en-US');

function overLimit(status: 400 | 429, message: string, limit: number, scope: 'client' | 'address' | 'total'): ApiError {
  const data = { subscriptions: fieldError('realtime_limit', message, { limit, scope }) };
  return status === 400 ? badRequest(message, data) : new ApiError(429, message, data);
}

/** What subscriptions hold, per address and in total, checked against the limits before a change. */
export class SubscriptionLedger {
  private readonly total = new Usage();
  private readonly byAddress = new Map<string, Usage>();

  constructor(readonly limits: Readonly<RealtimeLimits>) {}

  /**
   * Throws unless the client at `address` may hold `next` in place of `current`: a 400 for what one
   * client asks for itself, a 429 for what its address or the server already holds (room comes back
   * as other clients go). Each names its limit in the message and in `data.subscriptions.params`.
   * `shared` (a superuser: the admin UI) skips the address and server limits, so an attack that fills
   * them cannot lock the admin out; what it holds still counts against them.
   */
  check(address: string, current: Charge, next: Charge, shared = false): void {
    const l = this.limits;
    if (next.shapes.size > l.clientShapes) {
      throw overLimit(400, `A realtime client may use at most ${format(l.clientShapes)} distinct subscription options; this one asked for ${format(next.shapes.size)}.`, l.clientShapes, 'client');
    }
    if (shared) return;
    const at = this.byAddress.get(address) ?? new Usage();
    const scopes: [Usage, 'address' | 'total', string, number, number, number][] = [
      [at, 'address', 'from this address', l.addressSubscriptions, l.addressShapes, l.addressChars],
      [this.total, 'total', 'on this server', l.totalSubscriptions, l.totalShapes, l.totalChars],
    ];
    for (const [usage, scope, where, maxSubs, maxShapes, maxChars] of scopes) {
      if (usage.subscriptions - current.subscriptions + next.subscriptions > maxSubs) {
        throw overLimit(429, `Too many realtime subscriptions ${where} (at most ${format(maxSubs)}); close other connections or subscribe to fewer topics.`, maxSubs, scope);
      }
      if (usage.shapesAfter(current, next) > maxShapes) {
        throw overLimit(429, `Too many distinct realtime subscription options ${where} (at most ${format(maxShapes)}); share options between subscriptions or close other connections.`, maxShapes, scope);
      }
      if (usage.chars - current.chars + next.chars > maxChars) {
        throw overLimit(429, `Too much realtime subscription text ${where} (at most ${format(maxChars)} characters); close other connections or subscribe to fewer topics.`, maxChars, scope);
      }
    }
  }

  /** Records the replacement `check` allowed (or a client's going: `next` = NO_CHARGE). */
  apply(address: string, current: Charge, next: Charge): void {
    let at = this.byAddress.get(address);
    if (!at) this.byAddress.set(address, (at = new Usage()));
    at.apply(current, next);
    if (at.empty) this.byAddress.delete(address);
    this.total.apply(current, next);
  }

  /** Totals, for tests and benches. */
  usage(address?: string): { subscriptions: number; shapes: number; chars: number } {
    const u = address === undefined ? this.total : (this.byAddress.get(address) ?? new Usage());
    return { subscriptions: u.subscriptions, shapes: u.shapes.size, chars: u.chars };
  }
}
