// Client filters and sorts (mode 'filter'): what a non-superuser may not do or see, against real
// sql.js tables. users.listRule is `id = @request.auth.id`, notes.listRule is null, tags and comments
// are public; u2 (Bob) keeps his e-mail hidden.
import type { Database } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Collection, RequestInfo } from '../../server/model/types.js';
import { ApiError } from '../../server/errors.js';
import { FilterError } from '../../server/filter/filter-error.js';
import { MAX_FILTER_LENGTH } from '../../server/filter/limits.js';
import { HIDDEN_EMAIL_CASES, JOINED_LIST_RULE_CASES } from './cases.js';
import { collections, comments, guest, matching, openFixtureDb, signedIn, sorted, users, type Options } from './fixtures.js';

let db: Database;
beforeAll(async () => {
  db = await openFixtureDb();
});

const ALL = ['p1', 'p2', 'p3', 'p4'];
type As = 'guest' | 'u1' | 'u2' | 'root';

function as(who: As, extra: Options = {}): Options {
  const request: RequestInfo = who === 'guest' ? guest() : signedIn(db, who);
  return { mode: 'filter', request, ...extra };
}

describe('@collection and @request are for superusers only (403)', () => {
  it.each([
    ['guest', "@request.auth.id = ''", 'Only superusers can filter by @request.'],
    ['u1', "title = '@collection'", 'Only superusers can filter by @collection.'],
    ['u1', '@collection.news.author ?= author', 'Only superusers can filter by @collection.'],
    ['u2', "title = '@request.x' // even in a comment or text", 'Only superusers can filter by @request.'],
  ] as const)('%s: %s', (who, src, message) => {
    const run = () => matching(db, src, as(who));
    expect(run).toThrow(ApiError);
    expect(run).toThrow(message);
    try {
      run();
    } catch (err) {
      expect((err as ApiError).status).toBe(403);
    }
  });

  it('lets superusers use both, and refuses them in sorts too for others', () => {
    expect(matching(db, "@request.auth.id != '' && @collection.news.author ?= author", as('root'))).toEqual(['p1', 'p2', 'p4']);
    expect(() => sorted(db, '@request.auth.id', as('u1'))).toThrow('Only superusers can filter by @request.');
    expect(() => sorted(db, '@collection.news.id', as('u1'))).toThrow('Only superusers can filter by @collection.');
  });
});

describe('hidden fields and unlistable collections', () => {
  it.each([
    ["secret = 's1'", 'non-filterable field "secret" at character 1'],
    ["author.password = 'h1'", 'non-filterable field "password" at character 1'],
    ["title = 'x' || comments_via_post.author.password ?= 'x'", 'non-filterable field "password" at character 16'],
    ["note.body = 'top secret'", 'fields of "notes" can be filtered only by superusers at character 1'],
  ])('%s → 400 for everyone but superusers', (src, message) => {
    for (const who of ['guest', 'u1'] as const) {
      expect(() => matching(db, src, as(who))).toThrow(FilterError);
      expect(() => matching(db, src, as(who))).toThrow(message);
    }
    expect(() => matching(db, src, as('root'))).not.toThrow();
    expect(() => matching(db, src)).not.toThrow();
  });

  it('rules and superusers read hidden fields', () => {
    expect(matching(db, "secret = 's1'")).toEqual(['p1']);
    expect(matching(db, "secret = 's1'", as('root'))).toEqual(['p1']);
    expect(matching(db, "note.body = 'top secret'")).toEqual(['p1']);
    expect(matching(db, "author.password = 'h2'", as('root'))).toEqual(['p2']);
  });

  it('the stored ids of an unlistable relation are the record own data', () => {
    expect(matching(db, "note = 'n1'", as('guest'))).toEqual(['p1']);
    expect(matching(db, "note.id = 'n1'", as('guest'))).toEqual(['p1']);
  });
});

describe("joined collections' list rules apply inside the join", () => {
  it.each(JOINED_LIST_RULE_CASES)('%s as %s', (src, who, ids) => {
    expect(matching(db, src, as(who))).toEqual(ids);
  });

  it('compiles list rules that join further, with their own aliases', () => {
    const guarded: Collection = { ...comments, listRule: "post.published = true && post.tags.name ?= 'red'" };
    const lookup = (key: string) => (key === 'comments' || key === comments.id ? guarded : collections.find((c) => c.id === key || c.name === key));
    expect(matching(db, "comments_via_post.message ?~ 'hi'", as('guest', { lookup }))).toEqual(['p1']);
    expect(matching(db, "comments_via_post.message ?~ 'hi'", { lookup })).toEqual(['p1', 'p2']);
  });

  it('reports a broken list rule of a joined collection', () => {
    const broken: Collection = { ...comments, listRule: 'nope = 1' };
    const lookup = (key: string) => (key === 'comments' ? broken : collections.find((c) => c.id === key || c.name === key));
    expect(() => matching(db, "comments_via_post.message ?= 'x'", as('guest', { lookup })))
      .toThrow('invalid list rule of "comments" (unknown field "nope" at character 1) at character 1');
  });
});

describe('hidden e-mails of auth records', () => {
  it.each(HIDDEN_EMAIL_CASES)('%s as %s', (src, who, ids) => {
    expect(matching(db, src, as(who, { collection: users }))).toEqual(ids);
  });

  it('rules see every e-mail', () => {
    expect(matching(db, "email = 'bob@x.io'", { collection: users })).toEqual(['u2']);
  });

  it('sorting by e-mail does not reveal hidden ones', () => {
    expect(sorted(db, 'email', as('guest', { collection: users }))).toEqual(['u2', 'u1', 'u3']);
    expect(sorted(db, 'email', as('root', { collection: users }))).toEqual(['u1', 'u2', 'u3']);
  });
});

describe('client sorts', () => {
  it('refuse hidden and unlistable fields', () => {
    expect(() => sorted(db, '-secret', as('guest'))).toThrow('invalid sort field "secret" at character 2');
    expect(() => sorted(db, 'title,note.body', as('u1'))).toThrow('invalid sort field "note.body" at character 7');
    expect(sorted(db, '-secret', as('root'))).toEqual(['p4', 'p2', 'p1', 'p3']);
  });

  it('sort unlistable relations as missing values', () => {
    expect(sorted(db, '-author.name,id', as('guest'))).toEqual(ALL);
    expect(sorted(db, '-author.name,id', as('u2'))).toEqual(['p2', 'p1', 'p3', 'p4']);
  });
});

describe('client filter length', () => {
  const long = `title = '${'x'.repeat(MAX_FILTER_LENGTH)}'`;
  it('is limited in filter mode, for superusers too, but not for rules', () => {
    expect(() => matching(db, long, as('root'))).toThrow(`filter is too long (max ${MAX_FILTER_LENGTH} characters)`);
    expect(matching(db, long)).toEqual([]);
    expect(() => matching(db, ' '.repeat(MAX_FILTER_LENGTH + 1), as('guest'))).toThrow('filter is too long');
  });
});
