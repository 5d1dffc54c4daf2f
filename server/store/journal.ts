// Appends entries to the active journal segment with group commit: entries that arrive while a sync is
// in flight are written together by the next single write + fdatasync. Each append's promise settles
// once its entry is durable (or could not be made so). One file handle stays open for appends, and
// where the platform has O_DSYNC a second one on the same file opened with it: each batch is then one
// write that returns once the data and the size are on disk (what write + fdatasync did, in one system
// call: one trip to node's thread pool per group commit instead of two).
import { constants } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { encodeHeader, frameEntry, HEADER_SIZE, segmentPath } from './journal-format.js';
import type { SnapshotId } from './journal-format.js';
import { asError, syncDir, writeFully } from '../durable-files.js';

/** Counters kept by the store across journal instances (a recovery replaces the journal). */
export interface JournalCounters {
  entries: number;
  syncs: number;
  bytes: number;
}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

type EntryItem = { kind: 'entry'; frame: Buffer } & Waiter;
type QueueItem = EntryItem | ({ kind: 'rotate'; base: SnapshotId | Promise<SnapshotId> } & Waiter);

export interface ActiveSegment {
  handle: FileHandle;
  seq: number;
  /** Bytes of intact data in the file (header included): appends go here. */
  size: number;
}

export class JournalWriter {
  private queue: QueueItem[] = [];
  private running = false;
  private idleWaiters: (() => void)[] = [];
  /** Set by a failed append: nothing more is written until the store recovers from disk. */
  private failure: Error | null = null;
  private truncated: Promise<void> = Promise.resolve();
  private nextSeq: number;
  /** The active segment opened with O_DSYNC for appends (null until the first batch, and where there is none). */
  private synced: { seq: number; handle: FileHandle } | null = null;

  constructor(
    private readonly dir: string,
    private active: ActiveSegment,
    private readonly counters: JournalCounters,
    /** Called synchronously when an append fails, before any waiter hears of it. */
    private readonly onFailure: (error: Error) => void,
  ) {
    this.nextSeq = active.seq + 1;
  }

  /** Bytes in the active segment (the automatic checkpoint watches this). */
  get activeSize(): number {
    return this.active.size;
  }

  /** The number of the segment being appended to. */
  get activeSeq(): number {
    return this.active.seq;
  }

  append(payload: Uint8Array): Promise<void> {
    return this.appendFrame(frameEntry(payload));
  }

  /** An entry already framed (`frameEntryInSlices`). */
  appendFrame(frame: Buffer): Promise<void> {
    return this.enqueue((waiter) => ({ kind: 'entry', frame, ...waiter }));
  }

  /**
   * Starts a new segment continuing from snapshot `base`, after every entry appended before this call
   * is durable in the current one; entries appended after this call go to the new segment, even while
   * `base` is still being computed. Resolves with the new segment's number. A failure here leaves the
   * current segment in use and the journal healthy.
   */
  rotate(base: SnapshotId | Promise<SnapshotId>): Promise<number> {
    return this.enqueue<void>((waiter) => ({ kind: 'rotate', base, ...waiter })).then(() => this.active.seq);
  }

  /** Resolves when nothing is queued or being written. */
  drain(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    await this.drain();
    await this.truncated.catch(() => undefined);
    await this.closeSynced();
    await this.active.handle.close();
  }

  /** After a failure: resolves once the file is cut back to its last durable entry, or rejects. */
  afterFailure(): Promise<void> {
    return this.truncated;
  }

  private enqueue<T>(make: (waiter: Waiter) => QueueItem): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.queue.push(make({ resolve: resolve as () => void, reject }));
      if (!this.running) {
        this.running = true;
        // A turn of the event loop later, so every write committed meanwhile shares the first sync: a
        // write's transaction takes several microtasks (each statement is awaited), and writers woken
        // by the last sync reach their commits one after the other before the loop turns.
        setImmediate(() => void this.flushLoop());
      }
    });
  }

  private async flushLoop(): Promise<void> {
    while (this.queue.length > 0 && !this.failure) {
      const head = this.queue[0];
      if (head.kind === 'rotate') {
        this.queue.shift();
        await Promise.resolve(head.base).then((base) => this.startSegment(base)).then(head.resolve, (err: unknown) => head.reject(asError(err)));
        continue;
      }
      const batch = this.takeEntries();
      try {
        await this.writeBatch(batch.map((item) => item.frame));
      } catch (err) {
        this.fail(asError(err), batch);
        break;
      }
      for (const item of batch) item.resolve();
    }
    this.running = false;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** The entries at the head of the queue, up to the next rotation. */
  private takeEntries(): EntryItem[] {
    const batch: EntryItem[] = [];
    for (const item of this.queue) {
      if (item.kind !== 'entry') break;
      batch.push(item);
    }
    this.queue.splice(0, batch.length);
    return batch;
  }

  private async writeBatch(frames: Buffer[]): Promise<void> {
    const data = frames.length === 1 ? frames[0] : Buffer.concat(frames);
    const synced = await this.syncedHandle();
    if (synced !== null) {
      await writeFully(synced, data, this.active.size);
    } else {
      await writeFully(this.active.handle, data, this.active.size);
      await this.active.handle.datasync();
    }
    this.active.size += data.length;
    this.counters.syncs++;
    this.counters.entries += frames.length;
    this.counters.bytes += data.length;
  }

  /**
   * The entries of a failed batch, and every entry queued behind them (they were committed in memory
   * on top of the failed ones), are rejected. The file is cut back to the last durable entry, since
   * after a failed fdatasync the kernel's copy of those bytes cannot be trusted either way.
   */
  private fail(error: Error, batch: QueueItem[]): void {
    this.failure = error;
    const rejected = [...batch, ...this.queue.splice(0)];
    const { handle, size } = this.active;
    this.truncated = handle.truncate(size).then(() => handle.datasync());
    this.truncated.catch(() => undefined);
    this.onFailure(error);
    for (const item of rejected) item.reject(error);
  }

  /** The active segment's O_DSYNC handle, opened on first use; null where the platform has no O_DSYNC. */
  private async syncedHandle(): Promise<FileHandle | null> {
    if (O_DSYNC === undefined) return null;
    if (this.synced?.seq === this.active.seq) return this.synced.handle;
    await this.closeSynced();
    const seq = this.active.seq;
    this.synced = { seq, handle: await open(segmentPath(this.dir, seq), constants.O_WRONLY | O_DSYNC) };
    return this.synced.handle;
  }

  private async closeSynced(): Promise<void> {
    const synced = this.synced;
    this.synced = null;
    await synced?.handle.close().catch(() => undefined);
  }

  private async startSegment(base: SnapshotId): Promise<void> {
    const seq = this.nextSeq++;
    const handle = await createSegment(this.dir, seq, base);
    const previous = this.active.handle;
    this.active = { handle, seq, size: HEADER_SIZE };
    await this.closeSynced();
    await previous.close().catch(() => undefined);
  }
}

/** Writes through a file opened with it return once durable as fdatasync makes them (Linux, macOS; not Windows). */
const O_DSYNC: number | undefined = constants.O_DSYNC;

/** Creates segment `seq` with its header, durable (file and folder entry) before it takes entries. */
export async function createSegment(dir: string, seq: number, base: SnapshotId): Promise<FileHandle> {
  const path = segmentPath(dir, seq);
  const handle = await open(path, 'wx');
  try {
    await writeFully(handle, encodeHeader(base), 0);
    await handle.datasync();
    await syncDir(dir);
  } catch (err) {
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw err;
  }
  return handle;
}
