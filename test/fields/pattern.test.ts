// Field patterns (fields/pattern.ts) mean what they mean to Go's RE2, as in PocketBase, and take linear
// time whatever the pattern and the value: V8's native engine only on the subset where both engines agree
// and V8's linear engine can take over, re2js otherwise.
import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { defineField } from '../../server/core/fields/index.js';
import { matchesPattern, nativeSource } from '../../server/core/fields/pattern.js';

// lets this process compile with the `l` flag, which fails for what V8's linear engine cannot run
setFlagsFromString('--enable-experimental-regexp-engine');

const define = (pattern: string) => defineField({ name: 'handle', type: 'text', pattern }, 0, { collectionType: 'base', lookup: () => undefined });

describe('what a pattern means', () => {
  it.each([
    ['(a)\\1', 'invalid escape sequence: `\\1`'],
    ['(?=a)b', 'invalid or unsupported Perl syntax: `(?=`'],
    ['(?<!a)b', 'invalid named capture: `(?<!a)b`'],
    ['a{1,2000}', 'invalid repeat count: `{1,2000}`'],
  ])('RE2 refuses %s at save, with Go\'s message', (pattern, message) => {
    const { errors } = define(pattern);
    expect(errors.pattern).toMatchObject({ code: 'validation_invalid_regex' });
    expect((errors.pattern as { message: string }).message).toBe(`Error parsing regexp: ${message}.`);
  });

  it.each([
    ['^[[:alpha:]]+$', 'abc', true],
    ['^\\pL+$', 'héllo', true],
    ['(?i)^abc$', 'ABC', true],
    ['^a.c$', 'a\rc', true], // RE2's `.` excludes only \n
    ['^a.c$', 'a\nc', false],
    ['^(?P<x>ab)+\\z', 'abab', true],
    ['^.{3}$', 'a😀b', true], // three runes
    ['^[^a]?$', '😀', true],
    ['^\\s$', '\u00a0', false], // RE2's \s is ASCII
    ['[]a]', ']', true],
  ])('%s on %j: %s, as in Go', (pattern, value, expected) => {
    expect(define(pattern).errors).toEqual({});
    expect(matchesPattern(pattern, value)).toBe(expected);
  });

  it('a stored pattern RE2 refuses matches nothing', () => {
    expect(matchesPattern('(a)\\1', 'aa')).toBe(false);
  });
});

describe('the native subset', () => {
  const token = fc.constantFrom('a', 'b', 'Z', '1', ' ', '-', '.', '\\.', '\\d', '\\w', '\\W', '\\b', '[a-c]', '[^a]', '[]b]', '[.x]',
    '(', ')', '(?:', '|', '*', '+', '?', '*?', '^', '$', '{2}', '(?i)', '\\s', '[[:alpha:]]', 'é');
  const patterns = fc.array(token, { maxLength: 8 }).map((t) => t.join('')).filter((p) => {
    try {
      RE2JS.compile(p);
      return true;
    } catch {
      return false;
    }
  });
  const value = fc.array(fc.constantFrom('a', 'b', 'Z', '1', ' ', '-', '.', '\n', '\r', '\u2028', 'é', '😀', '_'), { maxLength: 8 }).map((a) => a.join(''));

  it('means the same to V8 as to RE2, and V8 can run it in linear time', () => {
    let native = 0;
    fc.assert(fc.property(patterns, value, (pattern, v) => {
      const expected = RE2JS.compile(pattern).test(v);
      expect(matchesPattern(pattern, v), JSON.stringify([pattern, v])).toBe(expected);
      const source = nativeSource(pattern);
      if (source === null || /[\uD800-\uDFFF]/.test(v)) return; // values outside the BMP go to re2js
      native++;
      // eslint-disable-next-line no-invalid-regexp -- 'l' is V8's linear-time engine (--enable-experimental-regexp-engine)
      expect(() => new RegExp(source, 'l'), source).not.toThrow();
      expect(new RegExp(source).test(v), JSON.stringify([pattern, v])).toBe(expected);
    }), { numRuns: 5000 });
    expect(native).toBeGreaterThan(1000);
  });
});

describe('hostile values', () => {
  // each of these took seconds to hours on V8's backtracking engine
  it.each([
    ['^[a-z0-9]+([._-]?[a-z0-9]+)*$', `${'a'.repeat(5000)}!`],
    ['^([a-zA-Z0-9]+[ ._-]?)+$', `${'a'.repeat(5000)}!`],
    ['(?i)^([a-z]+[ ._-]?)+$', `${'a'.repeat(5000)}!`], // not native: re2js
    ['^([a-z]{1,3}[._-]?)+$', `${'a'.repeat(5000)}!`], // counted repetition: re2js
    ['^(a|a)*b$', `${'a'.repeat(5000)}😀`], // a value outside the BMP: re2js
  ])('%s against %#', (pattern, v) => {
    expect(matchesPattern(pattern, v)).toBe(false);
  });
});
