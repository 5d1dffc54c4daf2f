// PocketBase's cron grammar (tools/cron/schedule.go): the same expressions accepted and refused with the
// same messages, macros expanded as PocketBase keeps them, times read in UTC.
import { describe, expect, it } from 'vitest';
import { isDue, parseSchedule } from '../../server/hooks/cron-schedule.js';

const sorted = (s: ReadonlySet<number>) => [...s].sort((a, b) => a - b);
const range = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

describe('cron expressions', () => {
  it.each([
    ['invalid', 'invalid cron expression - must be a valid macro or to have exactly 5 space separated segments'],
    ['* * * *', 'invalid cron expression - must be a valid macro or to have exactly 5 space separated segments'],
    ['* * * * * *', 'invalid cron expression - must be a valid macro or to have exactly 5 space separated segments'],
    ['*  * * * *', 'invalid cron expression - must be a valid macro or to have exactly 5 space separated segments'],
    ['@every 5m', 'invalid cron expression - must be a valid macro or to have exactly 5 space separated segments'],
    ['2/3 * * * *', 'invalid segment step - step > 1 could be used only with the wildcard or range format'],
    ['-1 * * * *', 'strconv.Atoi: parsing "": invalid syntax'],
    ['60 * * * *', 'invalid segment value - must be between the min and max of the segment'],
    ['* 24 * * *', 'invalid segment value - must be between the min and max of the segment'],
    ['* * 0 * *', 'invalid segment value - must be between the min and max of the segment'],
    ['* * 32 * *', 'invalid segment value - must be between the min and max of the segment'],
    ['* * * 13 *', 'invalid segment value - must be between the min and max of the segment'],
    ['* * * * 7', 'invalid segment value - must be between the min and max of the segment'],
    ['*/0 * * * *', 'invalid segment step boundary - the step must be between 1 and the 59'],
    ['* */24 * * *', 'invalid segment step boundary - the step must be between 1 and the 23'],
    ['*/2/3 * * * *', 'invalid segment step format - must be in the format */n or 1-30/n'],
    ['1-2-3 * * * *', 'invalid segment range format - the range must have 1 or 2 parts'],
    ['70-80 * * * *', 'invalid segment range minimum - must be between 0 and 59'],
    ['10-5 * * * *', 'invalid segment range maximum - must be between 10 and 59'],
    ['a * * * *', 'strconv.Atoi: parsing "a": invalid syntax'],
    ['*/x * * * *', 'strconv.Atoi: parsing "x": invalid syntax'],
  ])('refuses %j: %s', (expression, message) => {
    expect(() => parseSchedule(expression)).toThrow(message);
  });

  it('reads lists, ranges and steps into the slots PocketBase fills', () => {
    const s = parseSchedule('1,2,5,7,40-50/2 3,4,8-16/3,7 5,6,20-30/3,1 1,4,5-10/2 */2');
    expect(sorted(s.minutes)).toEqual([1, 2, 5, 7, 40, 42, 44, 46, 48, 50]);
    expect(sorted(s.hours)).toEqual([3, 4, 7, 8, 11, 14]);
    expect(sorted(s.days)).toEqual([1, 5, 6, 20, 23, 26, 29]);
    expect(sorted(s.months)).toEqual([1, 4, 5, 7, 9]);
    expect(sorted(s.daysOfWeek)).toEqual([0, 2, 4, 6]);
    const every = parseSchedule('*/2 */3 */5 */4 */2');
    expect(sorted(every.minutes)).toEqual(range(0, 58, 2));
    expect(sorted(every.days)).toEqual([1, 6, 11, 16, 21, 26, 31]);
    expect(sorted(every.months)).toEqual([1, 5, 9]);
    expect(sorted(parseSchedule('* * * * *').minutes)).toEqual(range(0, 59));
    expect(sorted(parseSchedule('5/1 * * * *').minutes)).toEqual([5]);
  });

  it('expands the macros as PocketBase keeps them (the expression GET /api/crons shows)', () => {
    expect(parseSchedule('@yearly').expression).toBe('0 0 1 1 *');
    expect(parseSchedule('@annually').expression).toBe('0 0 1 1 *');
    expect(parseSchedule('@monthly').expression).toBe('0 0 1 * *');
    expect(parseSchedule('@weekly').expression).toBe('0 0 * * 0');
    expect(parseSchedule('@daily').expression).toBe('0 0 * * *');
    expect(parseSchedule('@midnight').expression).toBe('0 0 * * *');
    expect(parseSchedule('@hourly').expression).toBe('0 * * * *');
    expect(parseSchedule('*/5 * * * *').expression).toBe('*/5 * * * *');
  });

  it('is due at the minutes it names, read in UTC', () => {
    // 2023-05-09 15:20 UTC was a Tuesday (day of week 2)
    const at = Date.UTC(2023, 4, 9, 15, 20, 30);
    expect(isDue(parseSchedule('20 15 9 5 2'), at)).toBe(true);
    expect(isDue(parseSchedule('*/10 * * * *'), at)).toBe(true);
    expect(isDue(parseSchedule('*/15 * * * *'), at)).toBe(false);
    expect(isDue(parseSchedule('20 15 9 5 3'), at)).toBe(false);
    expect(isDue(parseSchedule('@hourly'), at)).toBe(false);
    expect(isDue(parseSchedule('@hourly'), Date.UTC(2023, 4, 9, 16, 0))).toBe(true);
    expect(isDue(parseSchedule('@daily'), Date.UTC(2023, 4, 10, 0, 0))).toBe(true);
  });
});
