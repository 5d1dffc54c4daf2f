// The bytes a realtime stream has queued, shared between streams. Every message is encoded once
// (`event:` and `data:` lines, one Buffer for all its clients), and what a stream has queued since its
// last write is a path in a tree of such frames: a stream that gets message A then B stands on the node
// "A, B", and so do the thousand other streams of the same subscriber shape, so queuing a message costs
// each stream one step down the tree (a map lookup), and their next write is one Buffer joined once for
// all of them, not a copy per stream. The tree starts afresh at each round of writes (`restart`): nodes
// live while a stream stands on them or below them.
import type { RealtimeMessage } from '../../core/realtime/broker.js';

/** A message's `event:` and `data:` lines, encoded once for all the clients it goes to. */
const frames = new WeakMap<RealtimeMessage, Buffer>();
/** The last message encoded: a fan-out hands one message to its clients one after another. */
let last: { message: RealtimeMessage | null; bytes: Buffer } = { message: null, bytes: Buffer.alloc(0) };

export function frameOf(message: RealtimeMessage): Buffer {
  if (last.message === message) return last.bytes;
  let bytes = frames.get(message);
  if (!bytes) frames.set(message, (bytes = Buffer.from(`event:${message.name}\ndata:${message.data}\n\n`)));
  last = { message, bytes };
  return bytes;
}

/** A run of frames queued, from the tree's root to here. */
export class FrameRun {
  /** Bytes of the run. */
  readonly bytes: number;
  /** The one child most runs have (every stream of a shape takes the same step), then any others. */
  private nextFrame: Buffer | null = null;
  private nextRun: FrameRun | null = null;
  private more: Map<Buffer, FrameRun> | null = null;
  private joined: Buffer | null = null;

  constructor(private readonly parent: FrameRun | null = null, private readonly frame: Buffer | null = null) {
    this.bytes = (parent?.bytes ?? 0) + (frame?.byteLength ?? 0);
  }

  get empty(): boolean {
    return this.parent === null;
  }

  /** This run with `frame` after it: the same object for every stream that takes the same step. */
  then(frame: Buffer): FrameRun {
    if (this.nextFrame === frame) return this.nextRun as FrameRun;
    if (this.nextFrame === null) {
      this.nextFrame = frame;
      return (this.nextRun = new FrameRun(this, frame));
    }
    this.more ??= new Map();
    let run = this.more.get(frame);
    if (!run) this.more.set(frame, (run = new FrameRun(this, frame)));
    return run;
  }

  /** The run as one Buffer, joined once however many streams write it. */
  chunk(): Buffer {
    if (this.joined !== null) return this.joined;
    const parts: Buffer[] = [];
    if (this.frame !== null) {
      parts.push(this.frame);
      for (let run = this.parent; run !== null && run.frame !== null; run = run.parent) parts.push(run.frame);
    }
    parts.reverse();
    this.joined = parts.length === 1 ? parts[0] : Buffer.concat(parts, this.bytes);
    return this.joined;
  }
}

/** The tree's root: streams with nothing queued stand on it. */
export class FrameTree {
  root = new FrameRun();

  /** A new root, so the old tree is dropped once no stream stands in it (the flusher's round start). */
  restart(): void {
    this.root = new FrameRun();
  }
}
