// The logger (PocketBase's slog BatchHandler with its `_logs` writer, core/base.go initLogger): a log is a
// level, a message and structured data. `log()` only appends to a bounded queue in memory and returns; the
// queue is written in batches (every second, or at once when a batch is full) by `write`, never on the
// caller's path. When the queue is full a new log is dropped and counted: a flood of logs never stalls a
// request and never grows memory without bound. What is kept follows the `logs` settings: nothing while
// maxDays is 0, nothing below minLevel (PocketBase's behaviour).
import type { LogsSettings } from '../core/settings.js';
import { timeOrderedId } from '../core/ids.js';
import type { LogRecord } from './log-store.js';

/** slog's levels, as PocketBase stores them. */
export const LOG_LEVELS = { debug: -4, info: 0, warn: 4, error: 8 } as const;
export type LevelName = keyof typeof LOG_LEVELS;

/** PocketBase's settings defaults (core/settings_model.go): 5 days, info and up, client IPs, no auth ids. */
export const DEFAULT_LOGS_SETTINGS: LogsSettings = { maxDays: 5, minLevel: 0, logIP: true, logAuthId: false };

/** What one log's message and data may take when stored (PocketBase's defaultMaxLogDataSize, 16 KiB). */
export const MAX_LOG_DATA = 16 * 1024;

export interface LoggerOptions {
  /** Stores one batch; a batch that fails is counted as dropped and reported. */
  write: (logs: LogRecord[]) => Promise<void>;
  report: (error: unknown) => void;
  /** Logs waiting to be written at most; past it new ones are dropped (and counted). */
  capacity?: number;
  /** Logs per write. */
  batchSize?: number;
  /** How long a log may wait for its batch, in ms. */
  intervalMs?: number;
  now?: () => number;
}

type Data = Record<string, unknown>;

/** Logs of a batch made in one stretch of the event loop. */
const MAKE_SLICE = 200;

interface Pending {
  time: number;
  level: number;
  /** What makes the message and data: a request's log is made when its batch is written, off the request's path. */
  make: () => { message: string; data: Data };
}

/** PocketBase's date-time text: `2006-01-02 15:04:05.000Z`, which sorts and filters as text. */
export function logTime(ms: number): string {
  if (ms === lastTime.ms) return lastTime.text;
  const text = new Date(ms).toISOString().replace('T', ' ');
  lastTime.ms = ms;
  lastTime.text = text;
  return text;
}

/** The last time logTime made (a batch's logs mostly share their millisecond with a neighbour). */
const lastTime = { ms: Number.NaN, text: '' };

/**
 * A log's data cut to MAX_LOG_DATA of JSON: whole keys kept while they fit, then `__pb_truncated__`.
 * The JSON it measured goes with it (`dataJson`), so that the store does not make it again.
 */
function bounded(data: Data): { data: Data; dataJson?: string } {
  const text = JSON.stringify(data);
  if (text === undefined || text.length <= MAX_LOG_DATA) return { data, dataJson: text };
  const out: Data = {};
  let size = 2;
  for (const [key, value] of Object.entries(data)) {
    const entry = JSON.stringify({ [key]: value }) ?? '';
    if (size + entry.length > MAX_LOG_DATA - 64) continue;
    out[key] = value;
    size += entry.length;
  }
  out.__pb_truncated__ = true;
  return { data: out };
}

export class Logger {
  settings: LogsSettings = { ...DEFAULT_LOGS_SETTINGS };
  /** Logs dropped since start: the queue was full, or their batch could not be written. */
  dropped = 0;
  /** Logs written since start. */
  written = 0;
  /** Batches written since start (each one `write`). */
  batches = 0;
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private readonly capacity: number;
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(private readonly options: LoggerOptions) {
    this.capacity = options.capacity ?? 10_000;
    this.batchSize = options.batchSize ?? 200;
    this.intervalMs = options.intervalMs ?? 1_000;
    this.now = options.now ?? Date.now;
  }

  /** Whether a log of `level` would be kept now. */
  enabled(level: number): boolean {
    return !this.closed && this.settings.maxDays > 0 && level >= this.settings.minLevel;
  }

  /** Logs waiting to be written. */
  pending(): number {
    return this.queue.length;
  }

  /** Queues one log (constant work: no I/O, no serialisation); false when it was not kept. */
  log(level: LevelName | number, message: string, data: Data = {}): boolean {
    return this.later(level, () => ({ message, data }));
  }

  /** Queues one log whose message and data `make` makes when its batch is written. */
  later(level: LevelName | number, make: () => { message: string; data: Data }): boolean {
    const value = typeof level === 'number' ? level : (LOG_LEVELS[level] ?? LOG_LEVELS.info);
    if (!this.enabled(value)) return false;
    if (this.queue.length >= this.capacity) {
      this.dropped++;
      return false;
    }
    this.queue.push({ time: this.now(), level: value, make });
    if (this.queue.length >= this.batchSize) this.schedule(0);
    else this.schedule(this.intervalMs);
    return true;
  }

  debug(message: string, data?: Data): boolean { return this.log('debug', message, data); }
  info(message: string, data?: Data): boolean { return this.log('info', message, data); }
  warn(message: string, data?: Data): boolean { return this.log('warn', message, data); }
  error(message: string, data?: Data): boolean { return this.log('error', message, data); }

  /** Writes everything queued now (batch after batch); resolves once it is stored. */
  async flush(): Promise<void> {
    while (this.running !== null) await this.running;
    if (this.queue.length === 0) return;
    this.running = this.drain().finally(() => {
      this.running = null;
      // logs that arrived as the last batch was written wait for the next interval (or go now: a full batch)
      if (this.queue.length > 0) this.schedule(this.queue.length >= this.batchSize ? 0 : this.intervalMs);
    });
    await this.running;
  }

  /** Writes what is queued and takes no more logs. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.running !== null) return;
    if (this.timer !== null) {
      if (delayMs > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush().catch((error: unknown) => this.options.report(error));
    }, delayMs);
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchSize);
      const records: LogRecord[] = [];
      for (let i = 0; i < batch.length; i++) {
        const p = batch[i];
        // a large batch is made a slice at a time, a turn of the loop between
        if (i > 0 && i % MAKE_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
        // what the settings no longer keep (changed while it waited) is not written, as PocketBase's WriteFunc
        if (!this.enabled(p.level)) continue;
        try {
          const { message, data } = p.make();
          records.push({ id: timeOrderedId(), created: logTime(p.time), ...bounded(data), message: String(message).slice(0, MAX_LOG_DATA), level: p.level });
        } catch (error) {
          this.dropped++;
          this.options.report(error);
        }
      }
      try {
        await this.options.write(records);
        this.written += records.length;
        this.batches++;
      } catch (error) {
        this.dropped += records.length;
        this.options.report(error);
      }
      // the next batch in a later turn of the loop: what arrived meanwhile is served first
      if (this.queue.length > 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
