// @request.*, @collection.*, macros, placeholders and modifiers of request values, in rule mode,
// against real sql.js tables (the tables in cases.ts, rows in fixtures.ts; posts p1..p4, users u1 Alice admin verified
// friends [u2], u2 Bob user, news n1 draft/u1 and n2 live/u2).
import type { Database } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestInfo } from '../../server/model/types.js';
import { macroValue } from '../../server/filter/macros.js';
import { ALL, PLACEHOLDER_CASES, REQUEST_TABLES, type As } from './cases.js';
import { guest, matching, openFixtureDb, signedIn } from './fixtures.js';

let db: Database;
beforeAll(async () => {
  db = await openFixtureDb();
});

function request(as: As, extra: Partial<RequestInfo>): RequestInfo {
  return as === 'guest' ? guest(extra) : signedIn(db, as, extra);
}

for (const [name, cases] of REQUEST_TABLES) {
  describe(name, () => {
    it.each(cases)('%s as %s %j', (src, as, extra, ids) => {
      expect(matching(db, src, { request: request(as, extra) })).toEqual(ids);
    });
  });
}

describe('macros at month and year edges', () => {
  it.each([
    ['2024-02-10T00:00:00.000Z', '@monthEnd', '2024-02-29T23:59:59.999Z'],
    ['2023-12-31T23:59:59.999Z', '@tomorrow', '2024-01-01T23:59:59.999Z'],
    ['2023-12-31T23:59:59.999Z', '@monthEnd', '2023-12-31T23:59:59.999Z'],
    ['2024-03-01T00:00:00.000Z', '@yesterday', '2024-02-29T00:00:00.000Z'],
    ['2024-06-16T08:00:00.000Z', '@weekday', 0],
    ['2024-06-16T08:00:00.000Z', '@nope', undefined],
  ])('%s %s', (now, macro, value) => {
    expect(macroValue(macro, new Date(now))).toBe(value);
  });
});

describe('placeholders (server-side filters)', () => {
  it.each(PLACEHOLDER_CASES)('%s %j', (src, params, ids) => {
    expect(matching(db, src, { params })).toEqual(ids);
    expect(matching(db, 'id != ""')).toEqual(ALL);
  });

  it('refuses a missing value and placeholders without values', () => {
    expect(() => matching(db, 'title = {:t}', { params: {} })).toThrow('missing value for placeholder "{:t}" at character 9');
    expect(() => matching(db, 'title = {:t}')).toThrow('invalid character at character 9');
  });
});
