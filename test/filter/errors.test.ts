// Input → compile error (message with position), rule validation and the mapping to API errors.
import type { Database } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { asClientError } from '../../server/core/filter-errors.js';
import { ApiError } from '../../server/errors.js';
import { FilterError } from '../../server/filter/filter-error.js';
import { checkRule, compileFilter, compileSort } from '../../server/rules/compile.js';
import { context, guest, lookup, openFixtureDb, posts, signedIn, users } from './fixtures.js';

let db: Database;
beforeAll(async () => {
  db = await openFixtureDb();
});

const deep = (hops: number) => `author${'.friends'.repeat(hops - 1)}.name ?= 'x'`;

describe('compileFilter: input → error', () => {
  const cases: [string, string][] = [
    ['nope = 1', 'unknown field "nope" at character 1'],
    ["title = 'x' && nope = 1", 'unknown field "nope" at character 16'],
    ['title.x = 1', 'unknown field "title.x" at character 1'],
    ['author.nope = 1', 'unknown field "author.nope" at character 1'],
    ['location.alt = 1', 'unknown field "location.alt" at character 1'],
    ['collectionId = 1', 'unknown field "collectionId" at character 1'],
    ['a..b = 1', 'invalid identifier "a..b" at character 1'],
    ['title:nope = 1', 'unknown modifier ":nope" at character 1'],
    ['title:lower:lower = 1', 'unknown modifier ":lower:lower" at character 1'],
    ['author:lower.name = 1', 'invalid identifier "author:lower.name" at character 1'],
    ['title:each = 1', 'invalid modifier ":each" for "title" at character 1'],
    ['views:length = 1', 'invalid modifier ":length" for "views" at character 1'],
    ['title:isset = 1', 'invalid modifier ":isset" for "title" at character 1'],
    ['title:changed = 1', 'invalid modifier ":changed" for "title" at character 1'],
    ['data.a:length = 1', 'invalid modifier ":length" for "data.a" at character 1'],
    ['x_via_post.y = 1', 'invalid back-relation "x_via_post" at character 1'],
    ['comments_via_author.id = 1', 'invalid back-relation "comments_via_author" at character 1'],
    ['comments_via_nope.id = 1', 'invalid back-relation "comments_via_nope" at character 1'],
    ['@unknown = 1', 'unknown identifier "@unknown" at character 1'],
    ['#tag = 1', 'unknown identifier "#tag" at character 1'],
    ['@request = 1', 'unknown identifier "@request" at character 1'],
    ['@request.foo = 1', 'unknown identifier "@request.foo" at character 1'],
    ['@request.body = 1', 'unknown identifier "@request.body" at character 1'],
    ['@request.query.a.b = 1', 'unknown identifier "@request.query.a.b" at character 1'],
    ['@request.method:each = 1', 'invalid modifier ":each" for "@request.method" at character 1'],
    ['@request.body.title:length = 1', 'invalid modifier ":length" for "@request.body.title" at character 1'],
    ['@request.body.nope:changed = true', '":changed" needs a field of the collection, not "@request.body.nope:changed" at character 1'],
    ['@collection.nope.x = 1', 'unknown collection "nope" at character 1'],
    ['@collection.news = 1', 'unknown identifier "@collection.news" at character 1'],
    ['@collection.news.nope ?= 1', 'unknown field "@collection.news.nope" at character 1'],
    ['nope(1) = 1', 'unknown function "nope" at character 1'],
    ['geoDistance(1, 2, 3) < 1', 'geoDistance(): expects 4 arguments (lonA, latA, lonB, latB) at character 1'],
    ["geoDistance('a', 2, 3, 4) < 1", 'geoDistance(): arguments must be fields or numbers at character 13'],
    ['geoDistance(nope, 2, 3, 4) < 1', 'unknown field "nope" at character 13'],
    ['strftime(created) = 1', 'strftime(): the first argument must be a text format at character 1'],
    ["strftime('%Y', created, 1) = 1", 'strftime(): modifiers must be texts at character 25'],
    ["strftime('%Y', f(1)) = 1", 'strftime(): the time value must be a text, a number or a field at character 16'],
    [deep(7), 'max nested relations reached (6) at character 1'],
    ["title = 'x", 'unterminated text at character 9'],
  ];
  it.each(cases)('%s', (src, message) => {
    expect(() => compileFilter(src, context())).toThrow(FilterError);
    expect(() => compileFilter(src, context())).toThrow(message);
  });

  it('accepts exactly MAX_RELATION_DEPTH hops', () => {
    expect(() => compileFilter(deep(6), context())).not.toThrow();
  });
});

describe('compileSort: input → error', () => {
  it.each([
    ['nope', 'invalid sort field "nope" at character 1'],
    ['title,-nope.x', 'invalid sort field "nope.x" at character 8'],
    ['true', 'invalid sort field "true" at character 1'],
    ['@now', 'invalid sort field "@now" at character 1'],
    ['@request.query.x', 'invalid sort field "@request.query.x" at character 1'],
    ['a,b,c,d,e,f,g,h,i', 'too many sort fields (max 8) at character 17'],
  ])('%s', (src, message) => {
    expect(() => compileSort(src, context())).toThrow(message);
  });
});

describe('checkRule (collection save validation)', () => {
  it.each([
    ['', null],
    ['id = @request.auth.id', null],
    ["@request.auth.anything.at.all = 'x'", null],
    ['@request.body.title:changed = false && @request.body.tags:length < 3', null],
    ["@collection.news.author ?= @request.auth.id && secret != ''", null],
    ['comments_via_post.id ?= "c1"', null],
    ['nope = 1', 'unknown field "nope" at character 1'],
    ['id =', 'expected right operand (identifier, function, text or number) at character 5, got end of input'],
    ['@request.body.nope:changed = true', '":changed" needs a field of the collection, not "@request.body.nope:changed" at character 1'],
    ['@request.body.author.nope = 1', 'unknown field "@request.body.author.nope" at character 1'],
  ])('%j → %j', (src, expected) => {
    expect(checkRule(src, posts, lookup)).toBe(expected);
  });

  it('validates against the given collection', () => {
    expect(checkRule('email != "" && verified = true', users, lookup)).toBeNull();
    expect(checkRule('email != "" && verified = true', posts, lookup)).toBe('unknown field "email" at character 1');
  });
});

describe('asClientError (the one FilterError → 400 mapping)', () => {
  it('maps filter errors to the generic 400 and leaves others alone', () => {
    const mapped = asClientError(new FilterError('unknown field "x"', 0));
    expect(mapped).toBeInstanceOf(ApiError);
    expect((mapped as ApiError).toJSON()).toEqual({ status: 400, message: 'Something went wrong while processing your request.', data: {} });
    const other = new ApiError(403, 'Only superusers can filter by @request.');
    expect(asClientError(other)).toBe(other);
  });

  it('tells superusers which parameter failed and why; others get no detail', () => {
    const err = new FilterError('unknown field "x"', 0);
    const su = asClientError(err, { param: 'sort', request: signedIn(db, 'root') }) as ApiError;
    expect(su.toJSON().data).toEqual({ sort: { code: 'validation_invalid_sort', message: 'Unknown field "x" at character 1.' } });
    expect((asClientError(err, { param: 'filter', request: guest() }) as ApiError).toJSON().data).toEqual({});
  });
});
