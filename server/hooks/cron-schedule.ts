// A cron expression as PocketBase's tools/cron reads it: a macro or exactly five segments separated by
// single spaces (minute, hour, day of month, month, day of week), each a list of `*`, `n`, `a-b`, `*/s`
// or `a-b/s`; its error messages word for word (cronAdd reports them), times read in UTC.

export class CronExpressionError extends Error {}

export interface Schedule {
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly days: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly daysOfWeek: ReadonlySet<number>;
  /** The expression as PocketBase keeps it: a macro replaced by its five segments. */
  readonly expression: string;
}

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Go's strconv.Atoi on the decimal numbers a segment holds (an optional sign, then digits), its error text. */
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new CronExpressionError(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new CronExpressionError(`strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`);
  return n;
}

function parseSegment(segment: string, min: number, max: number): Set<number> {
  const slots = new Set<number>();
  for (const part of segment.split(',')) {
    const stepParts = part.split('/');
    let step: number;
    if (stepParts.length === 1) step = 1;
    else if (stepParts.length === 2) {
      step = atoi(stepParts[1]);
      if (step < 1 || step > max) throw new CronExpressionError(`invalid segment step boundary - the step must be between 1 and the ${max}`);
    } else throw new CronExpressionError('invalid segment step format - must be in the format */n or 1-30/n');

    let from: number;
    let to: number;
    if (stepParts[0] === '*') {
      from = min;
      to = max;
    } else {
      const rangeParts = stepParts[0].split('-');
      if (rangeParts.length === 1) {
        if (step !== 1) throw new CronExpressionError('invalid segment step - step > 1 could be used only with the wildcard or range format');
        from = atoi(rangeParts[0]);
        if (from < min || from > max) throw new CronExpressionError('invalid segment value - must be between the min and max of the segment');
        to = from;
      } else if (rangeParts.length === 2) {
        from = atoi(rangeParts[0]);
        if (from < min || from > max) throw new CronExpressionError(`invalid segment range minimum - must be between ${min} and ${max}`);
        to = atoi(rangeParts[1]);
        if (to < from || to > max) throw new CronExpressionError(`invalid segment range maximum - must be between ${from} and ${max}`);
      } else throw new CronExpressionError('invalid segment range format - the range must have 1 or 2 parts');
    }
    for (let i = from; i <= to; i += step) slots.add(i);
  }
  return slots;
}

/** Reads `expression`; throws CronExpressionError with PocketBase's message when it is not one. */
export function parseSchedule(expression: string): Schedule {
  const expanded = Object.hasOwn(MACROS, expression) ? MACROS[expression] : expression;
  const segments = expanded.split(' ');
  if (segments.length !== 5) {
    throw new CronExpressionError('invalid cron expression - must be a valid macro or to have exactly 5 space separated segments');
  }
  return {
    minutes: parseSegment(segments[0], 0, 59),
    hours: parseSegment(segments[1], 0, 23),
    days: parseSegment(segments[2], 1, 31),
    months: parseSegment(segments[3], 1, 12),
    daysOfWeek: parseSegment(segments[4], 0, 6),
    expression: expanded,
  };
}

/** Whether the schedule runs at the minute holding `at` (ms since the epoch), read in UTC as PocketBase's default. */
export function isDue(schedule: Schedule, at: number): boolean {
  const t = new Date(at);
  return schedule.minutes.has(t.getUTCMinutes()) && schedule.hours.has(t.getUTCHours()) && schedule.days.has(t.getUTCDate()) &&
    schedule.daysOfWeek.has(t.getUTCDay()) && schedule.months.has(t.getUTCMonth() + 1);
}
