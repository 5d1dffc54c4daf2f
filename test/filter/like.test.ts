// The `~` operator's pattern: built from a value as PocketBase builds it (filter/like.ts), and the
// JavaScript LIKE that long texts are routed to (filter/like-match.ts), which answers exactly as SQLite's
// `LIKE ... ESCAPE '\'` does and stops when its tick throws.
import fc from 'fast-check';
import type { Database } from 'sql.js';
import { loadSqlJs } from '../../server/store/db.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { escapeLike, hasUnescapedPercent, likePattern } from '../../server/filter/like.js';
import { likeMatches } from '../../server/filter/like-match.js';
import { cpuWatch } from '../fixtures/health-poll.js';

let db: Database;
beforeAll(async () => {
  db = new (await loadSqlJs()).Database();
});

function sqlite(text: string, pattern: string): boolean | null {
  const value = db.exec(`SELECT ? LIKE ? ESCAPE '\\'`, [text, pattern])[0].values[0][0];
  return value === null ? null : value === 1;
}

const never = () => {};

describe('likeMatches', () => {
  const unit = fc.constantFrom('a', 'A', 'b', 'B', 'z', '%', '_', '\\', 'é', 'É', '😀', '\0', ' ', '.');
  const text = fc.array(unit, { maxLength: 14 }).map((a) => a.join(''));

  it('agrees with SQLite on random texts and patterns', () => {
    fc.assert(fc.property(text, text, (t, p) => {
      expect(likeMatches(t, p, never), JSON.stringify([t, p])).toBe(sqlite(t, p));
    }), { numRuns: 3000 });
  });

  it('agrees with SQLite when the pattern is built from the text', () => {
    const derived = text.chain((t) => fc.tuple(fc.constant(t), fc.array(fc.constantFrom('%', '_', 'keep', 'keep', 'case', 'drop'), { minLength: t.length, maxLength: t.length })
      .map((ops) => [...t].map((c, i) => (ops[i] === 'keep' ? c : ops[i] === 'case' ? c.toUpperCase() : ops[i] === 'drop' ? '' : ops[i])).join(''))));
    fc.assert(fc.property(derived, ([t, p]) => {
      for (const pattern of [p, `%${p}`, `${p}%`, `%${p}%`]) expect(likeMatches(t, pattern, never), JSON.stringify([t, pattern])).toBe(sqlite(t, pattern));
    }), { numRuns: 1500 });
  });

  it('handles the cases PocketBase relies on', () => {
    const cases: [string, string][] = [
      ['Hello World', '%o w%'], ['', '%'], ['', ''], ['x', ''], ['100%', '%0\\%'], ['a_b', '%a\\_b%'], ['axb', '%a\\_b%'],
      ['abc', 'abc\\'], ['ÉCOLE', '%école%'], ['école', '%ÉCOLE%'], ['😀x', '_x'], ['a\0b', 'a'], ['ab', 'a\0zzz'],
    ];
    for (const [t, p] of cases) expect(likeMatches(t, p, never), JSON.stringify([t, p])).toBe(sqlite(t, p));
    expect(likeMatches(null, '%', never)).toBeNull();
    expect(likeMatches('x', null, never)).toBeNull();
  });

  it('is linear on the inputs that make SQLite quadratic, and stops when told to', () => {
    const long = 'a'.repeat(2_000_000);
    const cpu = cpuWatch(); // this thread's CPU time, which a busy machine does not stretch
    expect(likeMatches(long, `%${'a'.repeat(3000)}b%`, never)).toBe(false);
    expect(cpu()).toBeLessThan(2000);
    let ticks = 0;
    const stop = () => {
      if (++ticks > 3) throw new Error('deadline');
    };
    expect(() => likeMatches(long, `%${'a_'.repeat(500)}b%`, stop)).toThrow('deadline');
  });
});

describe('LIKE patterns (PocketBase wrapping)', () => {
  it.each([
    ['abc', '%abc%'],
    ['', '%%'],
    ['a_b', '%a\\_b%'],
    ['a\\_b', '%a\\_b%'],
    ['100\\%', '%100\\%%'],
    ['back\\slash', '%back\\\\slash%'],
    ['abc%', 'abc%'],
    ['%abc', '%abc'],
    ['a_c%', 'a_c%'],
    ['x\\%y%', 'x\\%y%'],
  ])('%j → %j', (value, pattern) => {
    expect(likePattern(value)).toBe(pattern);
  });

  it.each([
    ['abc', false], ['a%', true], ['a\\%', false], ['a\\\\%', true], ['', false],
  ])('hasUnescapedPercent(%j) = %s', (value, expected) => {
    expect(hasUnescapedPercent(value)).toBe(expected);
  });

  it('escapes each special character once', () => {
    expect(escapeLike('%_\\')).toBe('\\%\\_\\\\');
    expect(escapeLike('\\%\\_\\\\')).toBe('\\%\\_\\\\');
  });
});
