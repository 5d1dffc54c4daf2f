// The filter and sort parameters' syntax: text → tree (or sort items), and errors with their position.
import { describe, expect, it } from 'vitest';
import type { Group, Operand } from '../../server/filter/ast.js';
import { FilterError } from '../../server/filter/filter-error.js';
import { MAX_EXPRESSIONS, MAX_FILTER_LENGTH, MAX_NESTING_DEPTH, MAX_SORT_FIELD_LENGTH, MAX_SORT_FIELDS } from '../../server/filter/limits.js';
import { parseFilter } from '../../server/filter/parser.js';
import { parseSort } from '../../server/filter/sort.js';
import { cpuWatch } from '../fixtures/health-poll.js';

/** A compact rendering of the tree: `[left op right]`, groups in brackets, joins between items. */
function show(group: Group): string {
  return group.items.map((item, i) => {
    const node = item.node.kind === 'group' ? `(${show(item.node)})` : `[${operand(item.node.left)} ${item.node.op} ${operand(item.node.right)}]`;
    return i === 0 ? node : ` ${item.join} ${node}`;
  }).join('');
}

function operand(o: Operand): string {
  switch (o.kind) {
    case 'identifier': return o.name;
    case 'number': return `#${o.value}`;
    case 'text': return JSON.stringify(o.value);
    case 'placeholder': return `{:${o.name}}`;
    case 'function': return `${o.name}(${o.args.map(operand).join(', ')})`;
  }
}

describe('parseFilter: input → tree', () => {
  const cases: [string, string][] = [
    ["title = 'x'", '[title = "x"]'],
    ['a=1&&b!=2||c>=3', '[a = #1] && [b != #2] || [c >= #3]'],
    ['a ?= 1 && b ?!= 2 && c ?> 3 && d ?>= 4 && e ?< 5 && f ?<= 6 && g ?~ 7 && h ?!~ 8', '[a ?= #1] && [b ?!= #2] && [c ?> #3] && [d ?>= #4] && [e ?< #5] && [f ?<= #6] && [g ?~ #7] && [h ?!~ #8]'],
    ['a < 1 && b <= 2 && c ~ 3 && d !~ 4', '[a < #1] && [b <= #2] && [c ~ #3] && [d !~ #4]'],
    ["(a = 1 || (b = 2 && c = 'x')) && d = 3", '([a = #1] || ([b = #2] && [c = "x"])) && [d = #3]'],
    ['a = -14 && b = 10.50', '[a = #-14] && [b = #10.5]'],
    ['a>-5', '[a > #-5]'],
    [`a = "escaped \\"word\\"" && b = 'it\\'s'`, '[a = "escaped \\"word\\""] && [b = "it\'s"]'],
    ["a = 'back\\slash' && b = 'x\\\"y'", '[a = "back\\\\slash"] && [b = "x\\\\\\"y"]'],
    ["a = '(not a group)'", '[a = "(not a group)"]'],
    ['a = 1 // comment\n && b = 2 // another', '[a = #1] && [b = #2]'],
    ['\t\na\n=\r\n1 ', '[a = #1]'],
    ['@request.auth.id != "" && @collection.news:n.title:lower ~ x', '[@request.auth.id != ""] && [@collection.news:n.title:lower ~ x]'],
    ['#a = _b', '[#a = _b]'],
    ['geoDistance(a.lon, a.lat, 1.5, -2) < 10', '[geoDistance(a.lon, a.lat, #1.5, #-2) < #10]'],
    ["strftime('%Y', created, ) = '2024'", '[strftime("%Y", created) = "2024"]'],
    ['f(g(1)) = f()', '[f(g(#1)) = f()]'],
    ['f(g(h(1))) = 1', '[f(g(h(#1))) = #1]'],
    ['f( // comment\n a ) = 1', '[f(a) = #1]'],
    ["'a' = 'a'", '["a" = "a"]'],
    ['1 = 1', '[#1 = #1]'],
  ];
  it.each(cases)('%j', (src, expected) => {
    expect(show(parseFilter(src))).toBe(expected);
  });

  it('keeps 0-based positions on nodes', () => {
    const tree = parseFilter("  title = 'x' && (b = 1)");
    expect(tree.items[0].node.pos).toBe(2);
    expect(tree.items[1].node.pos).toBe(17);
  });

  it('parses placeholders only when asked', () => {
    expect(show(parseFilter('a = {:v} && b = {:w_2}', { placeholders: true }))).toBe('[a = {:v}] && [b = {:w_2}]');
    expect(() => parseFilter('a = {:v}')).toThrow('invalid character at character 5, got "{"');
  });
});

describe('parseFilter: input → error with position', () => {
  const cases: [string, string][] = [
    ['', 'empty filter expression at character 1'],
    ['   // only a comment', 'empty filter expression at character 21'],
    ["title 'x'", `expected a sign operator at character 7, got "'x'"`],
    ['= 1', 'expected left operand (identifier, function, text or number) at character 1, got "="'],
    ['a = ', 'expected right operand (identifier, function, text or number) at character 5, got end of input'],
    ['a = )', 'expected right operand (identifier, function, text or number) at character 5, got ")"'],
    ['a = 1 b = 2', 'expected && or || at character 7, got "b"'],
    ['a = 1 &&', 'invalid or incomplete filter expression at character 9'],
    ['a = 1 && ) ', 'expected left operand (identifier, function, text or number) at character 10, got ")"'],
    ['(a = 1', 'invalid formatted group - missing 1 closing bracket(s) at character 7'],
    ['((a = 1)', 'invalid formatted group - missing 1 closing bracket(s) at character 9'],
    ['a = 1)', 'unexpected closing bracket at character 6'],
    [')', 'expected left operand (identifier, function, text or number) at character 1, got ")"'],
    ['a = 1 && ()', 'empty group at character 10'],
    ['a / b', 'invalid comment at character 3'],
    ["a = 'x", 'unterminated text at character 5'],
    ["a = 'x\\'", 'unterminated text at character 5'],
    ['a & b', 'invalid join operator at character 3, got "&"'],
    ['a | b', 'invalid join operator at character 3, got "|"'],
    ['a ! b', 'invalid sign operator at character 3, got "! b"'],
    ['a ? b', 'invalid sign operator at character 3, got "? b"'],
    ['a. = 1', 'invalid identifier at character 1, got "a."'],
    ['a: = 1', 'invalid identifier at character 1, got "a:"'],
    ['@ = 1', 'invalid identifier at character 1, got "@"'],
    ['a = $', 'invalid character at character 5, got "$"'],
    ['a = .5', 'invalid character at character 5, got "."'],
    ['a = 1.', 'invalid number at character 5, got "1."'],
    ['a = 1.2.3', 'invalid number at character 5, got "1.2.3"'],
    ['a = -', 'invalid number at character 5, got "-"'],
    ['a = --1', 'invalid number at character 5, got "-"'],
    ['f (a) = 1', 'expected a sign operator at character 3, got "("'],
    ['f(a,,) = 1', 'expected a function argument at character 5, got ","'],
    ['f(a b) = 1', 'expected , or ) at character 5, got "b"'],
    ['f(a = 1', 'expected , or ) at character 5, got "="'],
    ['f(g(h(i(1)))) = 1', 'too deeply nested function calls (max 3) at character 7'],
    ['f(1,2,3,4,5,6,7,8,9,10,11) = 1', 'too many function arguments (max 10) at character 24'],
    ['a = {:x', 'invalid character at character 5, got "{"'],
  ];
  it.each(cases)('%j', (src, message) => {
    expect(() => parseFilter(src)).toThrow(FilterError);
    expect(() => parseFilter(src)).toThrow(message);
  });

  it('checks placeholders when they are on', () => {
    expect(() => parseFilter('a = {:}', { placeholders: true })).toThrow('invalid placeholder at character 5');
    expect(() => parseFilter('a = {x}', { placeholders: true })).toThrow('invalid placeholder at character 5');
  });

  it('exposes reason and 0-based position separately', () => {
    try {
      parseFilter("title 'x'");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(FilterError);
      expect((err as FilterError).reason).toBe('expected a sign operator');
      expect((err as FilterError).position).toBe(6);
    }
  });
});

describe('parseFilter: limits', () => {
  const terms = (n: number) => Array.from({ length: n }, (_, i) => `a = ${i}`).join(' && ');
  const nested = (n: number) => `${'('.repeat(n)}a = 1${')'.repeat(n)}`;

  it.each([
    [terms(MAX_EXPRESSIONS), null],
    [terms(MAX_EXPRESSIONS + 1), `too many expressions (max ${MAX_EXPRESSIONS})`],
    [nested(MAX_NESTING_DEPTH), null],
    [nested(MAX_NESTING_DEPTH + 1), `too deeply nested groups (max ${MAX_NESTING_DEPTH}) at character ${MAX_NESTING_DEPTH + 1}`],
  ])('limit case %#', (src, error) => {
    if (error === null) expect(() => parseFilter(src)).not.toThrow();
    else expect(() => parseFilter(src)).toThrow(error);
  });

  it('refuses sources over maxLength before scanning them', () => {
    const src = `a = '${'x'.repeat(MAX_FILTER_LENGTH)}'`;
    expect(() => parseFilter(src, { maxLength: MAX_FILTER_LENGTH })).toThrow(`filter is too long (max ${MAX_FILTER_LENGTH} characters)`);
    expect(() => parseFilter(src)).not.toThrow();
  });

  it.each([
    ['10k nested brackets', nested(10_000)],
    ['10k opening brackets', '('.repeat(10_000)],
    ['100k terms', terms(100_000)],
    ['100k closing brackets', `a = 1${')'.repeat(100_000)}`],
    ['1 MB unterminated text', `a = '${'x'.repeat(1_000_000)}`],
    ['1 MB identifier', `${'a'.repeat(1_000_000)}.`],
    ['1 MB of escaped quotes', `a = '${"\\'".repeat(500_000)}`],
  ])('fails fast on %s', (_name, src) => {
    const cpu = cpuWatch(); // this thread's CPU time, which a busy machine does not stretch
    expect(() => parseFilter(src)).toThrow(FilterError);
    expect(cpu()).toBeLessThan(500);
  });

  it('parses a 1 MB text literal in linear time', () => {
    const cpu = cpuWatch(); // this thread's CPU time, which a busy machine does not stretch
    const tree = parseFilter(`a = '${'x'.repeat(1_000_000)}'`);
    expect(cpu()).toBeLessThan(500);
    const node = tree.items[0].node;
    expect(node.kind === 'expr' && node.right.kind === 'text' && node.right.value.length).toBe(1_000_000);
  });
});

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
    const cpu = cpuWatch(); // this thread's CPU time, which a busy machine does not stretch
    expect(() => parseSort('a,'.repeat(500_000))).toThrow(FilterError);
    expect(cpu()).toBeLessThan(500);
  });
});
