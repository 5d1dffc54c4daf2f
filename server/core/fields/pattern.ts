// Field `pattern`s (text, password), in linear time. PocketBase compiles them with Go's regexp (RE2),
// which never backtracks; JavaScript's engine does, so an ordinary pattern such as
// `^([a-zA-Z0-9]+[ ._-]?)+$` let a guest freeze the server with `aaa…!` (exponential time in its length).
//
// - What a pattern means, and whether it is accepted, is RE2's: re2js (RE2 ported to JavaScript) parses
//   it at collection save, with Go's own error messages, so backreferences and lookarounds are refused
//   as PocketBase refuses them.
// - Matching runs on V8's native engine when the pattern lies in a subset where V8 and RE2 agree and that
//   V8's linear engine can run (no counted repetition, no flags, ASCII only; `.` written as `[^\n]`), with
//   V8 set to hand any expression that backtracks excessively to that linear engine. Everything else, and
//   values holding characters outside the BMP (a rune for RE2, two units for V8), is matched by re2js:
//   linear too, and about 0.1-0.5 µs per character.
import { setFlagsFromString } from 'node:v8';
import { RE2JS } from 're2js';

// Process-wide and taking effect for expressions compiled earlier too: set where patterns are compiled, so
// it holds in the CLI, the Electron main process and tests alike.
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

type Matcher = (value: string) => boolean;

const CACHE_SIZE = 256;
const cache = new Map<string, Matcher | Error>();
const SURROGATE = /[\uD800-\uDFFF]/;
const PLAIN = /[A-Za-z0-9 !"#%&',\-/:;<=>@_`~]/;
const CLASS_ESCAPES = 'dDwW';

/** Go's `regexp.Compile` error for `pattern` (`error parsing regexp: …`), or null when RE2 accepts it. */
export function patternError(pattern: string): string | null {
  const compiled = compile(pattern);
  return compiled instanceof Error ? compiled.message : null;
}

/** Tests a value against a field pattern as Go's `MatchString` does; a pattern RE2 refuses matches nothing. */
export function matchesPattern(pattern: string, value: string): boolean {
  const compiled = compile(pattern);
  return compiled instanceof Error ? false : compiled(value);
}

function compile(pattern: string): Matcher | Error {
  let compiled = cache.get(pattern);
  if (compiled === undefined) {
    compiled = build(pattern);
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(pattern, compiled);
  }
  return compiled;
}

function build(pattern: string): Matcher | Error {
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(pattern);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
  const source = nativeSource(pattern);
  let native: RegExp;
  try {
    if (source === null) throw new Error('outside the native subset');
    native = new RegExp(source);
  } catch {
    return (value) => re2.test(value);
  }
  return (value) => (SURROGATE.test(value) ? re2.test(value) : native.test(value));
}

/**
 * The same pattern for V8 when every token means the same in both engines and V8's linear engine can run
 * it, else null. Accepted: letters, digits and plain punctuation; `^ $ | * + ? ( ) (?:`; `.` (as
 * `[^\n]`, RE2's meaning); classes of plain characters, ranges and `\d \D \w \W`; `\d \D \w \W \b \B`;
 * a backslash before punctuation. Exported for the test that checks the linear engine accepts the output.
 */
export function nativeSource(pattern: string): string | null {
  let out = '';
  let inClass = false;
  let assertion = false; // RE2 repeats `^`, `$`, `\b` (matching nothing more); V8 refuses to
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const after = assertion;
    assertion = !inClass && (c === '^' || c === '$' || (c === '\\' && (pattern[i + 1] === 'b' || pattern[i + 1] === 'B')));
    if (after && '*+?'.includes(c)) return null;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      const escapable = CLASS_ESCAPES.includes(next) || (!inClass && (next === 'b' || next === 'B')) || /[!-/:-@[-`{-~]/.test(next);
      if (!escapable) return null;
      out += c + next;
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      else if (c === '[') return null; // `[[:alpha:]]` is a POSIX class for RE2, a `[` for V8
      else if (!PLAIN.test(c) && c !== '^' && c !== '.' && c !== '*' && c !== '+' && c !== '?' && c !== '|' && c !== '$' && c !== '(' && c !== ')') return null;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
      if (pattern[i + 1] === '^') out += pattern[++i];
      if (pattern[i + 1] === ']') out += `\\${pattern[++i]}`; // a leading `]` is literal in RE2
    } else if (c === '(') {
      if (pattern[i + 1] === '?') {
        if (pattern[i + 2] !== ':') return null; // flags, named groups
        out += '(?:';
        i += 2;
      } else out += c;
    } else if (c === '.') out += '[^\\n]';
    else if ('^$|*+?)'.includes(c) || PLAIN.test(c)) out += c;
    else return null; // `{`, `}`, `]` outside a class, anything not ASCII
  }
  return inClass ? null : out;
}
