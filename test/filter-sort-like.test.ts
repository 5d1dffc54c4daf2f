import { describe, expect, it } from 'vitest';
import { FilterError } from '../server/filter/filter-error.js';
import { escapeLike, hasUnescapedPercent, likePattern } from '../server/filter/like.js';
import { MAX_SORT_FIELDS, MAX_SORT_FIELD_LENGTH } from '../server/filter/limits.js';
import { parseSort } from '../server/filter/sort.js';

describe('parseSort', () => {
  it.each([
    ['', []],
    ['   ', []],
    ['title', [['title', false, 0]]],
    ['-created,title', [['created', true, 1], ['title', false, 9]]],
    [' +a , -b.c ', [['a', false, 2], ['b.c', true, 7]]],
    ['@random,-@rowid', [['@random', false, 0], ['@rowid', true, 9]]],
    ['title:lower,data.a.0', [['title:lower', false, 0], ['data.a.0', false, 12]]],
  ])('%j', (src, expected) => {
    expect(parseSort(src).map((i) => [i.name, i.desc, i.pos])).toEqual(expected);
  });

  it.each([
    ['a,,b', 'invalid sort field "" at character 3'],
    ['-', 'invalid sort field "" at character 2'],
    ['a b', 'invalid sort field "a b" at character 1'],
    ["title'", `invalid sort field "title'" at character 1`],
    ['a.', 'invalid sort field "a." at character 1'],
    ['1a', 'invalid sort field "1a" at character 1'],
    ['--a', 'invalid sort field "-a" at character 2'],
    [Array.from({ length: MAX_SORT_FIELDS + 1 }, (_, i) => `f${i}`).join(','), `too many sort fields (max ${MAX_SORT_FIELDS}) at character 25`],
    ['x'.repeat(MAX_SORT_FIELD_LENGTH + 1), `sort field is too long (max ${MAX_SORT_FIELD_LENGTH} characters) at character 1`],
  ])('%j → error', (src, message) => {
    expect(() => parseSort(src)).toThrow(FilterError);
    expect(() => parseSort(src)).toThrow(message);
  });

  it('accepts exactly the limits', () => {
    expect(parseSort(Array.from({ length: MAX_SORT_FIELDS }, (_, i) => `f${i}`).join(','))).toHaveLength(MAX_SORT_FIELDS);
    expect(parseSort('x'.repeat(MAX_SORT_FIELD_LENGTH))).toHaveLength(1);
  });

  it('fails fast on a huge sort', () => {
    const start = performance.now();
    expect(() => parseSort('a,'.repeat(500_000))).toThrow(FilterError);
    expect(performance.now() - start).toBeLessThan(500);
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
