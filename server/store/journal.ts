// Appends entries to the active journal segment with group commit, pipelined: entries that arrive
// while a group's write is in flight form the next group, and that group's write starts at once (at
// most MAX_IN_FLIGHT groups in flight), each at its own known offset of the segment. Each append's
// promise settles once its entry is durable (or could not be made so). One file handle stays open (the
// segment's: cut back after a failure), and one more per group in flight, through which that group is
// written: opened with O_DSYNC where the platform has it, each group is then one write that returns
// once the data and the size are on disk (what write + fdatasync did, in one system call: one trip to
// node's thread pool per group commit instead of two).
//
// Preallocated room: an O_DSYNC write (or fdatasync) that grows the file must also commit the new size
// (an ext4 journal commit: 83-111 µs CPU and 293-728 µs wall per ~3 KB write), one into bytes already
// allocated and synced only the data (57-82 µs, 193-281 µs). So the active segment is kept zero-filled
// and synced past the write end by a chunk (`extend`: the segment's bytes so far, 64 KiB to 4 MiB),
// filled in the background (written zeros then fdatasync: a sparse ftruncate leaves the blocks
// unallocated, and writes into it took as long as growing ones) once less than a chunk is left, never
// on the write path: a group never writes into the chunk being filled (it waits for it: only a burst
// of a whole chunk during one fill, or an entry larger than the room). A segment thus ends in zeros,
// which recovery reads as a clean end (scanEntries `dataEnd`) and keeps as room; a zero-fill the disk
// refuses, or that would leave less than 256 MiB free (ROOM_FREE_SPACE), stops only the room (appends
// grow the file until the writes pass another chunk). Not with `syncEveryMs`, whose sync is not per
// write.
//
// Why two groups in flight are safe (a crash can stop the disk at any point of either write):
// - Acknowledgements go in commit order: a group's entries resolve only once its write AND the write of
//   every group before it have returned. A durable later group never acknowledges anything while an
//   earlier one is not, so what a client was told is saved is always a prefix of the segment that is
//   wholly on disk.
// - A crash with a later group durable and an earlier one not leaves a hole inside the segment: the
//   earlier group's bytes read back as zeros (the file grew past them without them, or they were the
//   room's zeros), or as a part of them. Recovery (recovery.ts readChain/scanEntries) reads entries
//   from the header on and stops at the first whose length is zero or out of the file or whose CRC-32
//   does not hold: the hole ends the journal there, so no entry past it is replayed (none of them was
//   acknowledged). Only zeros after it: a clean end (the room). Anything else: the bytes from the hole
//   to the last one that is not zero are moved to `journal.<n>.log.damaged-<time>` and the segment is
//   cut at the hole, so the next append lands right after the last intact entry
//   (test/store/journal-pipeline.test.ts, test/store/journal-room.test.ts).
// - A failed or short write (ENOSPC, EIO, EFBIG) stops new writes at once; once every group in flight
//   has settled, the groups before the first failed one that are durable are acknowledged, the failed
//   group, every later one (durable or not: they were committed in memory on top of it) and everything
//   queued are rejected, and the file is cut back to the end of the last acknowledged group (room
//   included: after a zero-fill in flight, if one is), so the disk holds exactly what was acknowledged
//   (`fail`).
// - A rotation (checkpoint) waits until no group (nor zero-fill) is in flight: groups never span two
//   segments, and a new segment starts only once every entry before it is durable in the old one. The
//   old one keeps its zeros until deleted.
// - Without O_DSYNC (the fallback), each group is a write then an fdatasync through its own handle (as
//   above: an error is not reported to the other group's description only); an fdatasync flushes every
//   earlier write's bytes too, and the order of acknowledgements is the same.
// - `syncEveryMs` (a store whose last writes may be lost to a machine crash: the logs' own,
//   logs/index.ts) acknowledges a group once written to the file, without a sync, and syncs the
//   segment in the background at most `syncEveryMs` after a write, before a rotation and at close. A
//   process crash loses nothing written (the bytes are the kernel's); a machine crash loses at most the
//   groups written since the last sync, as a tail: recovery stops at the first entry that did not reach
//   the disk, so what is replayed is a prefix of the commits (a rotation never starts a segment before
//   the old one is synced). A failed background sync fails the journal as a failed write does.
import { constants } from 'node:fs';
import { open, statfs, unlink } from 'node:fs/promises';
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
  /**
   * The file's size, when the bytes past `size` are all zeros (preallocated room: appends below it do
   * not grow the file). Undefined: `size`.
   */
  allocated?: number;
}

/** One group commit: entries written together by one write (+ fdatasync) at `at`. */
interface Group {
  items: EntryItem[];
  at: number;
  length: number;
  /** The write returned (with `error` if it failed). */
  done: boolean;
  error: Error | null;
}

/** Writes all of `data` at `position` (durable-files.ts `writeFully`). */
export type WriteAt = (handle: FileHandle, data: Uint8Array, position: number) => Promise<void>;

export interface JournalOptions {
  /** Groups written at once (MAX_IN_FLIGHT). */
  maxInFlight?: number;
  /** How a group's bytes are written: tests hold or fail one group's write to stage a crash between two. */
  write?: WriteAt;
  /** False: write + fdatasync per group even where the platform has O_DSYNC (the fallback path, for tests). */
  dsync?: boolean;
  /**
   * Groups acknowledged once written, not synced each: the segment is synced in the background at most
   * this long (ms) after a write, before a rotation and at close (see the header). Undefined: every group
   * is durable before it is acknowledged.
   */
  syncEveryMs?: number;
  /** How `syncEveryMs`'s background sync syncs the segment (fdatasync): tests fail one. */
  datasync?: (handle: FileHandle) => Promise<void>;
  /**
   * False: no preallocated room, every append past the end grows the file (tests that count a segment's
   * bytes). Never with `syncEveryMs` (its sync is not per write: a size to commit costs it nothing).
   */
  preallocate?: boolean;
  /** How the room is zero-filled (write zeros, then fdatasync, `zeroFill`): tests fail one (a full disk). */
  zeroFill?: (handle: FileHandle, at: number, length: number) => Promise<void>;
}

export class JournalWriter {
  private queue: QueueItem[] = [];
  /** Groups whose write was started and not yet acknowledged (or rejected), in commit order. */
  private inFlight: Group[] = [];
  /** Where the next group is written: the end of the last group started. */
  private writeEnd: number;
  /** A pump is due (setImmediate) or running (it may be waiting on a rotation or a file to open). */
  private pumping = false;
  private idleWaiters: (() => void)[] = [];
  /** Set by a failed append: nothing more is written until the store recovers from disk. */
  private failure: Error | null = null;
  /** A group in flight failed: nothing more starts, and `fail` runs once every group in flight settled. */
  private failing = false;
  private truncated: Promise<void> = Promise.resolve();
  private nextSeq: number;
  /**
   * The active segment opened for appends once per slot of MAX_IN_FLIGHT (each opened on first use;
   * with O_DSYNC where the platform has it, else plainly, for a write then an fdatasync): the two
   * groups in flight write and sync through two file descriptions. Linux reports a failed writeback
   * (errseq) once to each file description: through a shared one, the later group's sync could take
   * the earlier group's error, the earlier one return success and be acknowledged, its bytes lost.
   * Through its own, each group hears of every error since its description's last report (the later
   * one's too, at worst: then both are rejected).
   */
  private synced: { seq: number; handles: (FileHandle | undefined)[] } | null = null;
  /** Groups started: group n writes through slot n % maxInFlight (the group before it is in the other one). */
  private started = 0;
  private readonly maxInFlight: number;
  private readonly write: WriteAt;
  private readonly dsync: boolean;
  private readonly syncEveryMs: number | undefined;
  private readonly datasync: (handle: FileHandle) => Promise<void>;
  /** The background sync of `syncEveryMs`, while one is due. */
  private syncTimer: NodeJS.Timeout | null = null;
  /** The background sync running, if one is. */
  private syncing: Promise<void> | null = null;
  /** `syncEveryMs`: bytes were written to the active segment since its last sync. */
  private unsynced = false;
  private readonly preallocate: boolean;
  private readonly zeroFill: (handle: FileHandle, at: number, length: number) => Promise<void>;
  /** The active segment's size, zeros past `writeEnd` (the room), synced: a write below it does not grow the file. */
  private allocated: number;
  /** The room being zero-filled, from `from` on, while it is. */
  private extension: { from: number; done: Promise<void> } | null = null;
  /** After a failed zero-fill (a full disk): the next one waits until the writes pass this. */
  private retryAt = 0;
  private closed = false;

  constructor(
    private readonly dir: string,
    private active: ActiveSegment,
    private readonly counters: JournalCounters,
    /** Called synchronously when an append fails, before any waiter hears of it. */
    private readonly onFailure: (error: Error) => void,
    options: JournalOptions = {},
  ) {
    this.nextSeq = active.seq + 1;
    this.writeEnd = active.size;
    this.maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
    this.write = options.write ?? writeFully;
    this.dsync = options.dsync ?? true;
    this.syncEveryMs = options.syncEveryMs;
    this.datasync = options.datasync ?? ((handle) => handle.datasync());
    this.preallocate = (options.preallocate ?? true) && this.syncEveryMs === undefined;
    this.zeroFill = options.zeroFill ?? ((handle, at, length) => zeroFill(dir, handle, at, length));
    this.allocated = Math.max(active.size, active.allocated ?? 0);
    this.extend();
  }

  /** Bytes of acknowledged entries in the active segment, header included (the automatic checkpoint watches this). */
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
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The active segment's size with its preallocated room (what a write below does not grow). */
  get allocatedSize(): number {
    return this.allocated;
  }

  /** Resolves once no room is being zero-filled. */
  async roomReady(): Promise<void> {
    while (this.extension !== null) await this.extension.done;
  }

  async close(): Promise<void> {
    await this.drain();
    this.closed = true;
    await this.roomReady();
    await this.truncated.catch(() => undefined);
    await this.syncNow().catch(() => undefined);
    await this.closeSynced();
    await this.active.handle.close();
  }

  /** After a failure: resolves once the file is cut back to its last durable entry, or rejects. */
  afterFailure(): Promise<void> {
    return this.truncated;
  }

  private idle(): boolean {
    return !this.pumping && this.queue.length === 0 && this.inFlight.length === 0;
  }

  private enqueue<T>(make: (waiter: Waiter) => QueueItem): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.queue.push(make({ resolve: resolve as () => void, reject }));
      if (!this.pumping && this.inFlight.length < this.maxInFlight && !this.failing) {
        this.pumping = true;
        // A turn of the event loop later, so every write committed meanwhile shares the group: a
        // write's transaction takes several microtasks (each statement is awaited), and writers woken
        // by the last acknowledgement reach their commits one after the other before the loop turns.
        setImmediate(() => void this.pump());
      }
    });
  }

  /** Starts groups while there is room in flight; a rotation waits until nothing is in flight. */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (this.queue.length > 0 && this.inFlight.length < this.maxInFlight && !this.failure && !this.failing) {
        const head = this.queue[0];
        if (head.kind === 'rotate') {
          if (this.inFlight.length > 0) break; // the last group's acknowledgement pumps again
          this.queue.shift();
          await Promise.resolve(head.base).then((base) => this.startSegment(base)).then(head.resolve, (err: unknown) => head.reject(asError(err)));
          continue;
        }
        let synced: FileHandle;
        try {
          // syncEveryMs: written through the segment's own handle (no O_DSYNC), synced in the background
          synced = this.syncEveryMs !== undefined ? this.active.handle : await this.syncedHandle(this.started % this.maxInFlight);
        } catch (err) {
          // as a group that failed (with no entries): everything queued is rejected once the groups
          // in flight, if any, have settled
          const failed: Group = { items: [], at: this.writeEnd, length: 0, done: false, error: null };
          this.inFlight.push(failed);
          this.settled(failed, asError(err));
          break;
        }
        if (this.failure || this.failing || this.queue[0]?.kind !== 'entry') continue;
        // the room being zero-filled is not written into until its zeros are down (rare: a burst of a
        // whole chunk while it is filled, or an entry larger than the room)
        if (this.extension !== null && this.writeEnd + this.queuedBytes() > this.extension.from) {
          await this.extension.done;
          continue;
        }
        this.start(this.takeEntries(), synced);
      }
    } finally {
      this.pumping = false;
    }
    this.notifyIfIdle();
  }

  /** Starts one group's write at the end of the groups before it. */
  private start(items: EntryItem[], synced: FileHandle): void {
    const data = items.length === 1 ? items[0].frame : Buffer.concat(items.map((item) => item.frame));
    const group: Group = { items, at: this.writeEnd, length: data.length, done: false, error: null };
    this.writeEnd += data.length;
    this.started++;
    this.inFlight.push(group);
    const written = this.syncEveryMs !== undefined
      ? this.write(synced, data, group.at).then(() => this.syncLater())
      : this.dsyncing()
        ? this.write(synced, data, group.at)
        : this.write(synced, data, group.at).then(() => synced.datasync());
    written.then(
      () => this.settled(group, null),
      (err: unknown) => this.settled(group, asError(err)),
    );
    this.extend();
  }

  /**
   * Keeps the room (zero-filled, synced bytes past the write end) at least a chunk: when less is left,
   * zero-fills the next chunk in the background. Appends into the room are the fast O_DSYNC path (data
   * only); appends that grow the file commit its size too (see the header). A zero-fill
   * that fails (a full disk) only stops the room growing until the writes pass another chunk: appends
   * grow the file meanwhile, and fail themselves if the disk has no room for them.
   */
  private extend(): void {
    if (!this.preallocate || this.closed || this.extension !== null || this.failure !== null || this.failing) return;
    const chunk = Math.min(ROOM_CHUNK_MAX, Math.max(ROOM_CHUNK_MIN, this.writeEnd));
    if (this.allocated - this.writeEnd >= chunk || this.writeEnd < this.retryAt) return;
    const { handle } = this.active;
    const from = Math.max(this.allocated, this.writeEnd);
    const done = this.zeroFill(handle, from, chunk).then(
      () => {
        if (this.active.handle === handle) this.allocated = Math.max(this.allocated, from + chunk);
      },
      () => {
        this.retryAt = this.writeEnd + chunk;
      },
    ).finally(() => {
      this.extension = null;
      this.extend();
    });
    this.extension = { from, done };
  }

  /** Bytes of the entries at the head of the queue, up to the next rotation (the next group's length). */
  private queuedBytes(): number {
    let bytes = 0;
    for (const item of this.queue) {
      if (item.kind !== 'entry') break;
      bytes += item.frame.length;
    }
    return bytes;
  }

  /**
   * A group's write returned: acknowledges, in commit order, every group durable with all the groups
   * before it, then starts the next group with what queued meanwhile (or fails, once every group in
   * flight has settled, if one failed).
   */
  private settled(group: Group, error: Error | null): void {
    group.done = true;
    group.error = error;
    if (error !== null) this.failing = true;
    while (this.inFlight.length > 0 && this.inFlight[0].done && this.inFlight[0].error === null) {
      const durable = this.inFlight.shift() as Group;
      this.active.size = durable.at + durable.length;
      this.allocated = Math.max(this.allocated, this.active.size);
      if (this.syncEveryMs === undefined) this.counters.syncs++;
      this.counters.entries += durable.items.length;
      this.counters.bytes += durable.length;
      for (const item of durable.items) item.resolve();
    }
    if (this.failing) {
      if (this.inFlight.every((g) => g.done)) {
        const failed = this.inFlight.find((g) => g.error !== null) as Group;
        this.fail(failed.error as Error, this.inFlight.splice(0).flatMap((g) => g.items));
      }
      return;
    }
    if (!this.pumping) void this.pump();
  }

  /** The entries at the head of the queue, up to the next rotation. */
  private takeEntries(): EntryItem[] {
    let count = 0;
    while (count < this.queue.length && this.queue[count].kind === 'entry') count++;
    return this.queue.splice(0, count) as EntryItem[];
  }

  /**
   * The entries of the failed group, of every group after it, and every entry queued behind them
   * (they were committed in memory on top of the failed ones), are rejected. The file is cut back to
   * the last acknowledged entry, since after a failed write or fdatasync the kernel's copy of those
   * bytes cannot be trusted either way, and a later group's bytes must not outlive an earlier one's.
   */
  private fail(error: Error, items: QueueItem[]): void {
    this.failure = error;
    this.failing = false;
    const rejected = [...items, ...this.queue.splice(0)];
    const { handle, size } = this.active;
    this.writeEnd = size;
    this.allocated = size;
    // after a zero-fill in flight, if one is (its zeros would land past the cut)
    this.truncated = this.roomReady().then(() => handle.truncate(size)).then(() => handle.datasync());
    this.truncated.catch(() => undefined);
    this.onFailure(error);
    for (const item of rejected) item.reject(error);
    this.notifyIfIdle();
  }

  private notifyIfIdle(): void {
    if (this.idle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Whether groups are written through O_DSYNC (else: a write then an fdatasync of the slot's handle). */
  private dsyncing(): boolean {
    return O_DSYNC !== undefined && this.dsync;
  }

  /**
   * The active segment's handle for `slot`, opened on first use: with O_DSYNC where the platform has
   * it, else plainly for writing (the fallback then syncs it with fdatasync). (Only the pump calls
   * this, one call at a time.)
   */
  private async syncedHandle(slot: number): Promise<FileHandle> {
    if (this.synced?.seq !== this.active.seq) {
      await this.closeSynced();
      this.synced = { seq: this.active.seq, handles: [] };
    }
    const { seq, handles } = this.synced as NonNullable<JournalWriter['synced']>;
    handles[slot] ??= await open(segmentPath(this.dir, seq), constants.O_WRONLY | (this.dsyncing() ? (O_DSYNC as number) : 0));
    return handles[slot];
  }

  private async closeSynced(): Promise<void> {
    const synced = this.synced;
    this.synced = null;
    for (const handle of synced?.handles ?? []) await handle?.close().catch(() => undefined);
  }

  /** `syncEveryMs`: a sync of the active segment due that long from now, unless one is due already. */
  private syncLater(): void {
    this.unsynced = true;
    if (this.syncTimer !== null) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      // as a group that failed (with no entries): nothing more is written and the store recovers
      this.syncNow().catch((err: unknown) => {
        if (this.failure !== null) return;
        const failed: Group = { items: [], at: this.writeEnd, length: 0, done: false, error: null };
        this.inFlight.push(failed);
        this.settled(failed, asError(err));
      });
    }, this.syncEveryMs);
    this.syncTimer.unref();
  }

  /** `syncEveryMs`: syncs what was written to the active segment (the timer's work, done now). */
  private async syncNow(): Promise<void> {
    if (this.syncEveryMs === undefined) return;
    if (this.syncTimer !== null) clearTimeout(this.syncTimer);
    this.syncTimer = null;
    while (this.syncing !== null) await this.syncing.catch(() => undefined);
    const handle = this.active.handle;
    if (!this.unsynced) return;
    this.unsynced = false;
    this.syncing = this.datasync(handle).then(() => { this.counters.syncs++; }, (err: unknown) => {
      this.unsynced = true;
      throw err;
    });
    try {
      await this.syncing;
    } finally {
      this.syncing = null;
    }
  }

  private async startSegment(base: SnapshotId): Promise<void> {
    // `syncEveryMs`: the old segment on disk before any entry goes to the new one (a prefix survives a crash)
    await this.syncNow();
    await this.roomReady();
    const seq = this.nextSeq++;
    const handle = await createSegment(this.dir, seq, base);
    const previous = this.active.handle;
    this.active = { handle, seq, size: HEADER_SIZE };
    this.writeEnd = HEADER_SIZE;
    this.allocated = HEADER_SIZE;
    this.retryAt = 0;
    this.extend();
    await this.closeSynced();
    await previous.close().catch(() => undefined);
  }
}

/**
 * Group writes in flight at once. Two lift the bound of one sync at a time (about N / (2 × sync time)
 * with N writers: the next group waited out the whole sync before it) to about N / sync time; more
 * only split the same writers into smaller groups.
 */
const MAX_IN_FLIGHT = 2;

/** Writes through a file opened with it return once durable as fdatasync makes them (Linux, macOS; not Windows). */
const O_DSYNC: number | undefined = constants.O_DSYNC;

/**
 * The room kept ahead of the write end (zero-filled, synced): a chunk of the bytes the segment holds so
 * far, at least ROOM_CHUNK_MIN (a store that writes little never fills megabytes of zeros), at most
 * ROOM_CHUNK_MAX. A segment thus ends in at most two chunks of zeros.
 */
export const ROOM_CHUNK_MIN = 64 * 1024;
const ROOM_CHUNK_MAX = 4 * 1024 * 1024;

const ZEROS = Buffer.alloc(1024 * 1024);

/**
 * Free space the room never takes: a nearly full disk keeps what it has for the appends themselves and
 * for the snapshot a checkpoint writes (on a 4 MiB disk, the room took the space a freed file gave back,
 * and the checkpoint at close failed with ENOSPC: test/crash/disk.test.ts).
 */
const ROOM_FREE_SPACE = 256 * 1024 * 1024;

/**
 * Writes `length` zeros at `at`, a MiB per write, then fdatasyncs the file (its new size with them);
 * refused (as a full disk) when the folder's file system would keep less than ROOM_FREE_SPACE free.
 */
async function zeroFill(dir: string, handle: FileHandle, at: number, length: number): Promise<void> {
  const { bavail, bsize } = await statfs(dir);
  if (bavail * bsize < length + ROOM_FREE_SPACE) {
    throw Object.assign(new Error(`ENOSPC: less than ${ROOM_FREE_SPACE} bytes would be left free, no journal room made`), { code: 'ENOSPC' });
  }
  for (let done = 0; done < length; done += ZEROS.length) {
    await writeFully(handle, ZEROS.subarray(0, Math.min(ZEROS.length, length - done)), at + done);
  }
  await handle.datasync();
}

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
