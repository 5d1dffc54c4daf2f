// The `fields` query parameter: keys kept with dot nesting and `*`, on records (expanded ones included)
// and on collections, and the `:excerpt(max, withEllipsis?)` modifier, whose cost stays linear in the text.

import { describe, expect, it } from 'vitest';
import { type Harness } from '../support/harness.js';
import { eachBlog, type Blog } from '../support/blog.js';
import fc from 'fast-check';
import { excerpt } from '../../server/core/excerpt.js';
import { fuzzRuns } from '../fixtures/hardening-soak.js';

describe('on records and collections', () => {
  let h: Harness;
  let b: Blog;
  eachBlog((fresh, data) => ((h = fresh), (b = data)));

  it('fields picks keys, nested expand keys and excerpts', async () => {
    const r = await h.req('GET', `/api/collections/posts/records?fields=id,title:excerpt(3,true),expand.tags.name&expand=tags&filter=${encodeURIComponent("title = 'Ann public'")}`, { token: b.su });
    expect(r.body.items[0]).toEqual({ id: b.posts.annPublic, title: 'Ann...', expand: { tags: [{ name: 'js' }, { name: 'db' }] } });
    expect(r.body).toMatchObject({ page: 1, totalItems: 1 });
  });

  it('fields applies to collection responses too', async () => {
    const r = await h.req('GET', '/api/collections/posts?fields=id,name', { token: b.su });
    expect(r.body).toEqual({ id: b.ids.posts, name: 'posts' });
  });
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
