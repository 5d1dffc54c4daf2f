// The `fields` query parameter: keys kept with dot nesting and `*`, on records (expanded ones included)
// and on collections, and the `:excerpt(max, withEllipsis?)` modifier, whose cost stays linear in the text
// (and is paid once per distinct text of an answer).

import { describe, expect, it } from 'vitest';
import { blog } from '../support/blog.js';
import { scenarios } from '../support/scenario.js';
import fc from 'fast-check';
import { excerpt } from '../../server/core/excerpt.js';
import { pickAll } from '../../server/core/pick-fields.js';
import { parseFields } from '../../server/core/request-params.js';
import { fuzzRuns } from '../fixtures/hardening-soak.js';
import { cpuWatch } from '../fixtures/health-poll.js';

describe('on records and collections', () => {
  scenarios(blog, [
    {
      name: 'fields picks keys, nested expand keys and excerpts',
      method: 'GET', url: `/api/collections/posts/records?fields=id,title:excerpt(3,true),expand.tags.name&expand=tags&filter=${encodeURIComponent("title = 'Ann public'")}`,
      token: (b) => b.su, status: 200,
      match: { page: 1, totalItems: 1 },
      after: (r, _h, b) => { expect(r.body.items[0]).toEqual({ id: b.posts.annPublic, title: 'Ann...', expand: { tags: [{ name: 'js' }, { name: 'db' }] } }); },
    },
    {
      name: 'fields applies to collection responses too',
      method: 'GET', url: '/api/collections/posts?fields=id,name', token: (b) => b.su, status: 200,
      json: (b) => ({ id: b.ids.posts, name: 'posts' }),
    },
  ]);
});

describe(':excerpt', () => {
  // `:excerpt` runs over text clients write, so it must cost time in proportion to the text. The former
  // one-line version (kept below as the reference) backtracked at every `<` without a match ahead: text
  // full of `<` and no `>` took 10 s over HTTP. The linear version must give the same output.

  /** The former implementation: right, but quadratic on hostile text. Only ever fed short strings here. */
  function reference(value: string, max: number, ellipsis: boolean): string {
    const text = value
      .replace(/<(script|style|svg|img|iframe|noscript|select|textarea|button|object|video|audio)\b[^>]*>[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<\/?(p|div|br|li|ul|ol|h[1-6]|tr|td|th|table|section|article|header|footer|blockquote|pre)\b[^>]*>/gi, ' ')
      .replace(/<[^>]*>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    const chars = [...text];
    return chars.length <= max ? text : chars.slice(0, max).join('') + (ellipsis ? '...' : '');
  }

  const pieces = [
    '<', '>', '/', ' ', '\n', '\t', '\u00a0', 'a', 'x', 'é', '😀', '_', '1', '"', '=',
    'script', 'SCRIPT', 'Style', 'img', 'textarea', 'scripts', 'p', 'P', 'pre', 'div', 'br', 'h1', 'h7', 'li', 'thead',
    '<script>', '</script>', '</SCRIPT>', '<p>', '</p>', '<br/>', '<img src=x>', '</TextArea>', '<div class="a">', '<!-- c -->',
  ];

  it('gives the former output on any mix of tags, text and whitespace', () => {
    fc.assert(fc.property(
      fc.array(fc.constantFrom(...pieces), { maxLength: 24 }).map((p) => p.join('')),
      fc.integer({ min: 1, max: 12 }),
      fc.boolean(),
      (html, max, ellipsis) => {
        expect(excerpt(html, max, ellipsis)).toBe(reference(html, max, ellipsis));
      },
    ), { numRuns: fuzzRuns(20_000) });
  });

  it('F4: gives the former output on long texts too, where it reads only their beginning when it can', () => {
    const filler = fc.constantFrom('lorem ipsum dolor '.repeat(300), '<p>long paragraph</p> '.repeat(250), 'x'.repeat(6000), ' \n '.repeat(1500));
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.constantFrom(...pieces), filler), { maxLength: 16 }).map((p) => p.join('')),
      fc.integer({ min: 1, max: 40 }),
      fc.boolean(),
      (html, max, ellipsis) => {
        expect(excerpt(html, max, ellipsis)).toBe(reference(html, max, ellipsis));
      },
    ), { numRuns: fuzzRuns(3_000) });
  });

  it('F4: a large text with its words early costs what its beginning does', () => {
    const html = `<p>${'word '.repeat(40)}</p>${'<div>'.repeat(2_000_000)}`;
    const cpu = cpuWatch();
    for (let i = 0; i < 20; i++) expect(excerpt(html, 10, true)).toBe('word word ...');
    // 20 whole passes over 10 MB take seconds of CPU; 20 heads take microseconds (counted on this
    // thread's CPU, which a busy machine does not stretch)
    expect(cpu()).toBeLessThan(500);
  });

  it('keeps ordinary HTML as before', () => {
    const html = '<article><h1>Title</h1><p>First <b>bold</b> paragraph.</p><script>alert(1)</script><ul><li>one</li><li>two</li></ul>'
      + '<style>p{color:red}</style><img src="x.png"><p>Último 😀 párrafo</p></article>';
    for (const max of [1, 5, 12, 20, 40, 200]) for (const ellipsis of [false, true]) {
      expect(excerpt(html, max, ellipsis)).toBe(reference(html, max, ellipsis));
    }
    expect(excerpt(html, 200, false)).toBe('Title First bold paragraph. one two Último 😀 párrafo');
    expect(excerpt(42, 3, true)).toBe(42);
  });

  // each of these took from seconds to hours with the backtracking version
  it.each([
    ['a million `<` and no `>`', '<'.repeat(1_000_000), '<<<<<<<<<<...'],
    ['`<script` openers without `>`', '<script '.repeat(200_000), '<script <s...'],
    ['`<script>` openers never closed', `${'<script>'.repeat(200_000)}tail`, 'tail'],
    ['block tags without `>`', '<p <div '.repeat(200_000), '<p <div <p...'],
    ['nested unclosed tags', `${'<div><span>'.repeat(100_000)}deep${'</b'.repeat(100_000)}`, 'deep</b</b...'],
    ['an opener with its closer a megabyte later', `<style>${'<'.repeat(1_000_000)}</style>after`, 'after'],
  ])('%s: answered, in linear time', (_name, html, expected) => {
    expect(excerpt(html, 10, true)).toBe(expected);
  });
});

describe('F4: one excerpt per distinct text in an answer', () => {
  it('a text shared by a thousand records (an expanded relation) is excerpted once', () => {
    // a megabyte that the beginning cannot settle: block tags only, so the whole text is read
    const shared = { id: 'post1', body: `${'<div>'.repeat(200_000)}end` };
    const items = Array.from({ length: 1000 }, (_, i) => ({ id: `c${i}`, expand: { post: shared } }));
    const cpu = cpuWatch();
    const out = pickAll(items, parseFields('id,expand.post.body:excerpt(5)')) as { expand: { post: { body: string } } }[];
    expect(out.every((o) => o.expand.post.body === 'end')).toBe(true);
    // a thousand passes over a megabyte take seconds of CPU; one takes milliseconds (this thread's CPU)
    expect(cpu()).toBeLessThan(1500);
  });
});
