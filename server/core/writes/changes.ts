// What each committed write changed, for whoever listens (realtime, later): one subscription point.
// A write's record changes (with the rows before and after) are published once its journal entry is
// synced, in commit order, and never for a write that rolled back or whose journal append failed.
import type { QueryBudget, Store, WriteTx } from '../../store/db.js';
import type { Collection, Row } from '../../model/types.js';
import { stoppable } from '../stoppable.js';

export interface RecordChange {
  action: 'create' | 'update' | 'delete';
  collection: Collection;
  /** The stored row before the write; null for a create. */
  before: Row | null;
  /** The stored row after the write; null for a delete. */
  after: Row | null;
}

/** Hears the changes of one committed write, all of them at once (a cascade's included). */
export type ChangeListener = (changes: readonly RecordChange[]) => void;

/** Runs as a write's last step inside its transaction, when it changed records (a team server's outbox: core/realtime/between-nodes.ts). */
export type BeforeCommit = (tx: WriteTx, changes: readonly RecordChange[]) => Promise<void>;

interface Entry {
  changes: RecordChange[];
  state: 'pending' | 'durable' | 'dropped';
}

export class ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  /** Committed writes in commit order, from the oldest one not yet durable or dropped. */
  private readonly queue: Entry[] = [];

  /** `report` hears a listener's error (a listener cannot fail a write that is already durable). */
  constructor(
    private readonly report: (error: unknown) => void,
    private readonly beforeCommit: BeforeCommit | null = null,
  ) {}

  /** Returns the function that unsubscribes. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * `store.write(fn, budget)`, with `fn` reporting what it changed. Writes run one at a time, so the order in
   * which their transactions end is the commit order; journal syncs may settle out of it (one sync
   * can serve several writes), so a durable write waits in the queue for those committed before it.
   * `stopped`: a stopped hook's (EventScope.stopped), rolled back when it fired.
   */
  async write<T>(store: Store, fn: (tx: WriteTx, changes: RecordChange[]) => Promise<T>, budget?: QueryBudget, stopped?: AbortSignal): Promise<T> {
    const entry: Entry = { changes: [], state: 'pending' };
    let queued = false;
    // a stopped hook's write (EventScope.stopped) rolls back instead of committing
    const body = stoppable(stopped, fn);
    try {
      const result = await store.write(async (tx) => {
        const out = await body(tx, entry.changes);
        if (this.beforeCommit !== null && entry.changes.length > 0) await this.beforeCommit(tx, entry.changes);
        // queued as the transaction ends: a throw before this point rolled everything back
        this.queue.push(entry);
        queued = true;
        return out;
      }, budget);
      entry.state = 'durable';
      return result;
    } catch (err) {
      entry.state = 'dropped'; // a failed COMMIT or journal append: memory is back to what the disk holds
      throw err;
    } finally {
      if (queued) this.flush();
    }
  }

  private flush(): void {
    while (this.queue.length > 0 && this.queue[0].state !== 'pending') {
      const entry = this.queue.shift() as Entry;
      if (entry.state !== 'durable' || entry.changes.length === 0) continue;
      for (const listener of this.listeners) {
        try {
          listener(entry.changes);
        } catch (err) {
          this.report(err);
        }
      }
    }
  }
}
