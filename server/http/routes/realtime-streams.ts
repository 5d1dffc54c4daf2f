// The realtime event streams' bytes on their way to the sockets (realtime-api.ts opens the streams).
// A stream's queued messages are a run of frames shared with the other streams of its shape
// (realtime-frames.ts) and reach the socket as one write per round (realtime-flush.ts). A message for
// a whole group of streams (one subscriber shape's members, core/realtime/fan-out.ts) is queued on the
// group, one step whatever its size; each member takes the group's run as one frame of its own when
// it is next written, or sooner when anything else comes for it, so its messages keep their order.
// What waits for a reader is bounded per stream and in total; a reader past the bound is dropped (the
// SDK reconnects and resubscribes).
import type { Socket } from 'node:net';
import type { RealtimeBroker, RealtimeClient, RealtimeGroupSink, RealtimeMessage } from '../../core/realtime/broker.js';
import { RealtimeFlusher, type Flushable, type FlushOptions, type FlushResult } from './realtime-flush.js';
import { FrameTree, frameOf, type FrameRun } from './realtime-frames.js';

/**
 * Bytes a client may have waiting (sent, not yet taken by its socket). Past it the stream is ended,
 * its queue dropped: a reader that stopped reading cannot grow the server's memory. The SDK reconnects
 * and resubscribes, as after any dropped connection (PocketBase leaves such a client's goroutines
 * waiting instead).
 */
export const REALTIME_QUEUE_BYTES = 4 * 1024 * 1024;

/**
 * Bytes all clients together may have waiting. Past it, a client that is behind (more than 256 KiB
 * waiting, or anything waiting and nothing taken for a second) is dropped as a full one is, at its
 * next message: slow or stopped readers on many connections cannot hold 4 MiB each, while a client
 * that keeps up is not dropped for the others. A group's run handed to its members is one Buffer
 * they all hold: it counts once, however many hold it (StreamSet.hold), not once per member.
 */
export const REALTIME_QUEUE_TOTAL_BYTES = 32 * 1024 * 1024;
/** An empty write: its callback runs once the socket has taken every write before it. */
const NOTHING = Buffer.alloc(0);

const BEHIND_BYTES = 256 * 1024;
const BEHIND_MS = 1000;
/**
 * A group's run is handed to its members (each then counting it against its bounds) once it is this
 * long, whoever was written meanwhile: a group (one per shape and subscription string; the shapes are
 * bounded by subscription-limits.ts) holds at most this much that no client's bound counts yet.
 */
const GROUP_RUN_BYTES = 64 * 1024;

/** What all streams share: the frame tree, the flusher, the bytes waiting in all of them. */
export class StreamSet {
  readonly tree = new FrameTree();
  readonly flusher: RealtimeFlusher;
  /** Bytes waiting in all streams, as each stream last saw its own queue. */
  queuedTotal = 0;
  /** Each connected client's stream. */
  readonly byClient = new WeakMap<RealtimeClient, EventStream>();
  readonly groups: StreamGroups;

  constructor(readonly broker: RealtimeBroker, readonly totalQueueBytes: number, flush: Readonly<FlushOptions>) {
    this.flusher = new RealtimeFlusher(flush, () => this.tree.restart(), () => broker.trace);
    this.groups = new StreamGroups(this);
  }

  /** One more stream holds `chunk`: the first counts its bytes into the total. */
  hold(chunk: SharedChunk): void {
    if (chunk.holders++ === 0) this.queuedTotal += chunk.bytes.byteLength;
  }

  /** A stream no longer holds `chunk` (its socket took it, or it closed): the last takes its bytes out. */
  release(chunk: SharedChunk): void {
    if (--chunk.holders === 0) this.queuedTotal -= chunk.bytes.byteLength;
  }
}

/** A group's run handed over: one Buffer its members hold, in the total once while any holds it (StreamSet.hold). */
export class SharedChunk {
  holders = 0;
  constructor(readonly bytes: Buffer) {}

  /** Bytes it would add to the total were one more stream to hold it: none while another does. */
  get adds(): number {
    return this.holders > 0 ? 0 : this.bytes.byteLength;
  }
}

/** One message queued for many streams (a shape's members), taken by each before anything else of theirs. */
class Group {
  run: FrameRun;
  open = false;
  /**
   * The members' streams, looked up once: a client's stream is made before it can subscribe and is its
   * own for its life (a closed one says so), and the members' array is the fan-out's while its shapes
   * hold, so each round's steps over the members look nothing up.
   */
  readonly streams: readonly (EventStream | undefined)[];
  constructor(readonly clients: readonly RealtimeClient[], root: FrameRun, byClient: WeakMap<RealtimeClient, EventStream>) {
    this.run = root;
    this.streams = clients.map((client) => byClient.get(client));
  }
}

export class StreamGroups implements RealtimeGroupSink {
  /** Keyed by the members' array, which the fan-out keeps while its shapes hold. */
  private readonly groups = new WeakMap<readonly RealtimeClient[], Group>();

  constructor(private readonly set: StreamSet) {}

  send(clients: readonly RealtimeClient[], message: RealtimeMessage, committed = performance.now()): void {
    let group = this.groups.get(clients);
    if (!group) this.groups.set(clients, (group = new Group(clients, this.set.tree.root, this.set.byClient)));
    if (!group.open) {
      // each member's messages from another group go first; then it stands in this one until written
      for (const stream of group.streams) {
        if (stream === undefined || stream.closed) continue;
        if (stream.group !== null) this.handOver(stream.group);
        stream.group = group;
        this.set.flusher.mark(stream, committed);
      }
      group.open = true;
      group.run = this.set.tree.root;
    }
    group.run = group.run.then(frameOf(message));
    if (group.run.bytes >= GROUP_RUN_BYTES) this.handOver(group);
  }

  /** The group's run becomes one frame of each member still in it (their queue bounds checked then). */
  handOver(group: Group): void {
    const chunk = group.run.empty ? null : new SharedChunk(group.run.chunk());
    group.open = false;
    group.run = this.set.tree.root;
    const { streams, clients } = group;
    for (let i = 0; i < streams.length; i++) {
      const stream = streams[i];
      if (stream === undefined || stream.group !== group) continue;
      stream.group = null;
      if (chunk !== null && !stream.queue(chunk)) this.set.broker.disconnect(clients[i].id);
    }
  }
}

/** A client's event stream: its queued run, where it is written, what it has waiting. */
export class EventStream implements Flushable {
  waiting = false;
  closed = false;
  /** The group whose run this stream has yet to take (StreamGroups). */
  group: Group | null = null;
  /** What is queued and not yet written: a run of shared frames. */
  private run: FrameRun;
  /**
   * Where the bytes go: the response's stream until PB_CONNECT and the head are on the socket, then the
   * socket itself (`direct`): the body is close-delimited, so its bytes are the events' bytes alone.
   */
  private direct: Socket | null = null;
  /**
   * Bytes waiting (queued, and written but not yet taken by the socket) that are this stream's own, as
   * last seen (into the total): the shared chunks it holds are counted once in the total, not here.
   */
  private queued = 0;
  /**
   * The shared chunks (its groups' runs) it holds and their bytes: queued (one as a rule, a field and
   * no array per round; `heldMore` when several groups' runs come before a write), or written alone
   * and not yet all taken by its socket (`inSocket`: the socket holds that very Buffer). A write that
   * joined a chunk with anything else gave the socket a copy of its own, counted as this stream's.
   */
  private held: SharedChunk | null = null;
  private heldMore: SharedChunk[] | null = null;
  private inSocket: SharedChunk | null = null;
  private heldBytes = 0;
  /** When the socket last took everything written to it, or the queue was last found empty. */
  private taken = performance.now();
  /** When messages were last written for the client (Date.now(); 0 before any): the idle timer's (RealtimeSink.sentAt). */
  sentAt = 0;

  constructor(private readonly set: StreamSet, private readonly control: ReadableStreamDefaultController<Uint8Array>, private readonly limit: number) {
    this.run = set.tree.root;
  }

  /** PB_CONNECT and the head are on `socket`: later writes go to it directly. */
  useSocket(socket: Socket): void {
    if (this.direct !== null || this.closed) return;
    this.direct = socket;
  }

  /**
   * Listening for the socket's next 'drain' only while it holds something of ours (a write it did not
   * take whole, or a round that skipped it): a write of a round's 16 KiB or more ends in a 'drain' even
   * when the socket took it at once, and a listener on every subscriber would run once per round each.
   */
  private draining = false;

  private awaitDrain(): void {
    if (this.draining || this.direct === null) return;
    this.draining = true;
    // node emits 'drain' only after a write the socket refused (its buffer at the 16 KiB high-water mark
    // or over); below that, an empty write's callback tells when everything before it is taken
    if (this.direct.writableNeedDrain) this.direct.once('drain', this.drained);
    else this.direct.write(NOTHING, this.drained);
  }

  private readonly drained = () => {
    this.draining = false;
    if (this.closed) return;
    this.taken = performance.now();
    this.sync();
    if (!this.run.empty) this.set.flusher.mark(this);
  };

  /** Bytes written and not yet taken: the socket's own buffer, or the response stream's queue. */
  private unsent(): number {
    return this.direct !== null ? this.direct.writableLength : Math.max(0, -(this.control.desiredSize ?? 0));
  }

  /** This stream's queue as it is now, into the total; the shared chunks its socket has taken let go. */
  private sync(unsent = this.unsent()): void {
    const waiting = unsent + this.run.bytes;
    if (waiting === 0) {
      this.taken = performance.now();
      if (this.heldBytes > 0) this.releaseAll();
    } else if (unsent === 0 && this.inSocket !== null) this.releaseWritten();
    const own = Math.max(0, waiting - this.heldBytes);
    this.set.queuedTotal += own - this.queued;
    this.queued = own;
  }

  private releaseWritten(): void {
    if (this.inSocket === null) return;
    this.set.release(this.inSocket);
    this.heldBytes -= this.inSocket.bytes.byteLength;
    this.inSocket = null;
  }

  private releaseAll(): void {
    this.releaseWritten();
    if (this.held !== null) this.set.release(this.held);
    if (this.heldMore !== null) for (const chunk of this.heldMore) this.set.release(chunk);
    this.held = null;
    this.heldMore = null;
    this.heldBytes = 0;
  }

  /** `waiting`: everything the stream has waiting, its own bytes and the shared chunks it holds. */
  private behind(waiting: number): boolean {
    return waiting > BEHIND_BYTES || (waiting > 0 && performance.now() - this.taken > BEHIND_MS);
  }

  /** One message for this stream alone, after its group's. False once it is dropped (queue full). */
  send(message: RealtimeMessage): boolean {
    if (this.closed) return true;
    if (this.group !== null) this.set.groups.handOver(this.group);
    if (this.closed) return false;
    return this.queue(frameOf(message));
  }

  /**
   * `frame` after what is queued, or the stream dropped when it would pass a bound. A SharedChunk (a
   * group's run, one Buffer for all its members) counts once in the total; this stream's own bound
   * counts it whole (it is what this stream keeps waiting).
   */
  queue(frame: Buffer | SharedChunk): boolean {
    const shared = frame instanceof SharedChunk ? frame : null;
    const bytes = shared === null ? (frame as Buffer) : shared.bytes;
    const size = bytes.byteLength;
    const waiting = this.unsent() + this.run.bytes;
    const adds = shared === null ? size : shared.adds;
    if (waiting + size > this.limit || (this.set.queuedTotal + adds > this.set.totalQueueBytes && this.behind(waiting))) {
      this.drop();
      return false;
    }
    this.run = this.run.then(bytes);
    if (shared !== null) {
      this.set.hold(shared);
      if (this.held === null) this.held = shared;
      else (this.heldMore ??= []).push(shared);
      this.heldBytes += size;
    } else {
      this.queued += size;
      this.set.queuedTotal += size;
    }
    this.set.flusher.mark(this);
    return true;
  }

  private write(chunk: Buffer): void {
    if (this.direct !== null) {
      // a write the socket keeps some of is followed by awaitDrain (flush): a 'drain', or an empty write
      if (!this.direct.destroyed) this.direct.write(chunk);
    } else this.control.enqueue(chunk);
  }

  /** The flusher's round: what is queued, as one write. */
  flush(): FlushResult {
    if (this.closed) return 'empty';
    if (this.group !== null) this.set.groups.handOver(this.group);
    if (this.closed || this.run.empty) return 'empty';
    // a socket that has not taken the last write is skipped: its messages wait (and join the next
    // write), and its drain brings it back; the queue's bound still holds for it
    if (this.direct !== null && this.direct.writableLength > 0) {
      this.awaitDrain();
      return 'skipped';
    }
    const chunk = this.run.chunk();
    this.write(chunk);
    this.sentAt = this.set.flusher.roundAt;
    this.run = this.set.tree.root;
    const unsent = this.unsent();
    if (unsent > 0) this.awaitDrain();
    if (this.heldBytes > 0) {
      // the socket took it all (as a rule): let go; or it keeps part of the shared Buffer itself,
      // held until it takes it; or of a copy of its own (the chunk joined with more), this stream's
      const alone = this.held !== null && this.heldMore === null && this.inSocket === null && chunk === this.held.bytes;
      if (alone && unsent > 0) {
        this.inSocket = this.held;
        this.held = null;
      } else this.releaseAll();
    }
    this.sync(unsent);
    return 'written';
  }

  /** The response asked for more (it wrote what it had): what is waiting is seen again. */
  pulled(): void {
    this.taken = performance.now();
    this.sync();
  }

  private forget(): void {
    this.closed = true;
    this.group = null;
    this.run = this.set.tree.root;
    this.sync(0);
    if (this.draining) this.direct?.off('drain', this.drained);
  }

  /** Over a bound: the stream fails (the connection is destroyed), nothing more is queued. */
  private drop(): void {
    this.forget();
    this.control.error(new Error('realtime client queue full'));
  }

  /** Ends the stream after what was queued for it. */
  close(): void {
    if (this.closed) return;
    if (this.group !== null) this.set.groups.handOver(this.group);
    if (this.closed) return;
    if (!this.run.empty) this.write(this.run.chunk());
    this.forget();
    this.control.close();
  }

  /** The connection went away. */
  cancelled(): void {
    this.forget();
  }
}
