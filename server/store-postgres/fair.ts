// Work waiting by client, taken fairly: the one order of fairness between clients on a team server,
// used for its connections (connections.ts) and for the node's write turn (store.ts `turn`).
//
// Each client's own waiting work is first come, first served; between clients, round-robin: each
// waiting client has a place in the round, taken when it began waiting or was last served, and the
// client whose place comes first is served next (then, when it has more waiting, it goes to the end of
// the round). A caller may rank clients before their place (`shift`'s `weight`: connections.ts, the
// connections a client holds), and may send a client to the end of the round (`toBack`: store.ts, the
// client whose write turn just ended). One client queueing any amount of work keeps no other client
// waiting behind all of it, and no client waits for ever: among clients of the same weight, every
// client waiting is served once those before it in the round have been, once each.

/** A client's waiting work, in the order it came; its place in the round. */
interface Waiting<T> {
  readonly queue: T[];
  /** Lower goes first (among clients of the same weight): when it began waiting, or was last served. */
  place: number;
}

export class FairQueue<T> {
  private readonly waiting = new Map<string, Waiting<T>>();
  /** The round's clock: places are taken from it. */
  private clock = 0;

  /** Items waiting, every client's. */
  get size(): number {
    let n = 0;
    for (const w of this.waiting.values()) n += w.queue.length;
    return n;
  }

  /** `item` waits for `client`, after the client's own waiting work. */
  push(client: string, item: T): void {
    const waiting = this.waiting.get(client);
    if (waiting === undefined) this.waiting.set(client, { queue: [item], place: this.clock++ });
    else waiting.queue.push(item);
  }

  /** Takes `item` out of `client`'s waiting work; false when it is not there (already taken). */
  remove(client: string, item: T): boolean {
    const waiting = this.waiting.get(client);
    const at = waiting === undefined ? -1 : waiting.queue.indexOf(item);
    if (at < 0) return false;
    waiting!.queue.splice(at, 1);
    if (waiting!.queue.length === 0) this.waiting.delete(client);
    return true;
  }

  /** `client`, when it has work waiting, to the end of the round (it was just served). */
  toBack(client: string): void {
    const waiting = this.waiting.get(client);
    if (waiting !== undefined) waiting.place = this.clock++;
  }

  /**
   * The next to serve: of the waiting clients with the lowest `weight`, the one whose place comes
   * first; its first item is taken, and the client goes to the end of the round.
   */
  shift(weight: (client: string) => number = () => 0): { client: string; item: T } | null {
    let best: { client: string; waiting: Waiting<T>; weight: number } | null = null;
    for (const [client, waiting] of this.waiting) {
      const w = weight(client);
      if (best === null || w < best.weight || (w === best.weight && waiting.place < best.waiting.place)) best = { client, waiting, weight: w };
    }
    if (best === null) return null;
    const item = best.waiting.queue.shift()!;
    if (best.waiting.queue.length === 0) this.waiting.delete(best.client);
    else best.waiting.place = this.clock++;
    return { client: best.client, item };
  }
}
