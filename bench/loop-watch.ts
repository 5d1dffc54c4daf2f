// A process's event loop over a window (the bench's children: op loopStart / loopStop): how late a
// 1 ms timer ran (the delay anything queued meets) and the loop's utilization.
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import type { LoopFigures } from './protocol.js';

export class LoopWatch {
  private histogram: IntervalHistogram | null = null;
  private elu: EventLoopUtilization | null = null;

  start(): null {
    this.histogram?.disable();
    this.histogram = monitorEventLoopDelay({ resolution: 1 });
    this.histogram.enable();
    this.elu = performance.eventLoopUtilization();
    return null;
  }

  stop(): LoopFigures {
    const h = this.histogram;
    if (h === null || this.elu === null) throw new Error('loop watch not started');
    h.disable();
    this.histogram = null;
    const ms = (ns: number) => ns / 1e6;
    return { delayP50: ms(h.percentile(50)), delayP99: ms(h.percentile(99)), delayMax: ms(h.max), utilization: performance.eventLoopUtilization(this.elu).utilization };
  }
}
