// Hostile and random input: the compiler answers with a FilterError (or the 403 ApiError) quickly, never
// crashes, hangs or emits SQL that SQLite rejects, and values never reach the SQL text.
import fc from 'fast-check';
import type { Database } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../server/errors.js';
import { FilterError } from '../../server/filter/filter-error.js';
import { compileFilter, compileSort, type CompileContext } from '../../server/rules/compile.js';
import { context, guest, matching, openFixtureDb, query, signedIn } from './fixtures.js';
import { cpuWatch } from '../fixtures/health-poll.js';
import { anyText } from '../fixtures/any-text.js';

let db: Database;
beforeAll(async () => {
  db = await openFixtureDb();
});

function contexts(): CompileContext[] {
  return [
    context({ request: signedIn(db, 'u1', { body: { title: 'x', tags: ['t1'] }, query: { q: 'a' } }) }),
    context({ mode: 'filter', request: guest() }),
    context({ mode: 'filter', request: signedIn(db, 'root') }),
  ];
}

/** Compiles and runs; returns false when the compiler refused the input with one of its own errors. */
function compileAndRun(src: string, ctx: CompileContext): boolean {
  let compiled;
  try {
    compiled = compileFilter(src, ctx);
  } catch (err) {
    if (err instanceof FilterError || (err instanceof ApiError && err.status === 403)) return false;
    throw err;
  }
  query(db, `SELECT count(*) FROM "posts" AS r WHERE ${compiled.sql}`, compiled.params);
  return true;
}

describe('random input', () => {
  it('arbitrary strings give a result or a FilterError', () => {
    fc.assert(fc.property(anyText(80), (src) => {
      for (const ctx of contexts()) compileAndRun(src, ctx);
    }), { numRuns: 400 });
  });

  const tokens = [
    'title', 'views', 'tags.name', 'author.name', 'tags', 'labels:each', 'comments_via_post.message', 'data.a.b',
    'location.lat', 'author.friends.name', 'title:lower', 'tags:length', '@request.auth.id', '@request.body.tags:each',
    '@request.body.title:changed', '@request.query.q:isset', '@collection.news.author', '@collection.news:n.category',
    '@now', '@weekday', 'true', 'null', "'x'", '"y"', "'%'", '1', '-2.5', '=', '!=', '?=', '>', '<=', '~', '!~', '?!~',
    '?>', '&&', '||', '(', ')', 'geoDistance(location.lon, location.lat, 1, 2)', "strftime('%Y', created)", '//c\n',
  ];

  it('token soup gives a FilterError or SQL that SQLite runs', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...tokens), { maxLength: 12 }), (parts) => {
      for (const ctx of contexts()) compileAndRun(parts.join(' '), ctx);
    }), { numRuns: 400 });
  });

  const operand = fc.constantFrom(
    'title', 'views', 'published', 'tags.name', 'tags.id', 'author.name', 'author.friends.name', 'labels:each', 'labels',
    'comments_via_post.message', 'data.a.b', 'data', 'location.lon', 'title:lower', 'tags:length', 'created', '@now',
    'true', 'false', 'null', "''", "'hello'", '0', '10.5', "strftime('%Y', created)", '@request.auth.id',
    '@request.body.tags:each', '@collection.news.category', '@request.auth.friends.name',
  );
  const op = fc.constantFrom('=', '!=', '>', '>=', '<', '<=', '~', '!~', '?=', '?!=', '?>', '?>=', '?<', '?<=', '?~', '?!~');
  const expr = fc.tuple(operand, op, operand).map(([a, o, b]) => `${a} ${o} ${b}`);
  const item = fc.oneof(expr, fc.array(expr, { minLength: 1, maxLength: 3 }).map((es) => `(${es.join(' || ')})`));
  const filter = fc.array(fc.tuple(fc.constantFrom('&&', '||'), item), { minLength: 1, maxLength: 5 })
    .map((items) => items.map(([join, it], i) => (i === 0 ? it : `${join} ${it}`)).join(' '));

  it('well-formed filters always compile (rule mode, superusers) and run', () => {
    fc.assert(fc.property(filter, (src) => {
      const [rule, , superuser] = contexts();
      expect(compileAndRun(src, rule)).toBe(true);
      expect(compileAndRun(src, superuser)).toBe(true);
    }), { numRuns: 300 });
  });
});

describe('hostile input fails fast', () => {
  const cases: [string, string, string][] = [
    ['10k nested groups', `${'('.repeat(10_000)}title = 1${')'.repeat(10_000)}`, 'too deeply nested groups'],
    ['100k terms', Array.from({ length: 100_000 }, () => "title = 'x'").join(' && '), 'too many expressions'],
    ['100k joins', `title = 1${' ||'.repeat(100_000)}`, 'expected left operand'],
    ['1 MB unterminated text', `title = '${'x'.repeat(1_000_000)}`, 'unterminated text'],
    ['1 MB identifier', `${'a'.repeat(1_000_000)} = 1`, 'unknown field'],
    ['1 MB path', `author${'.friends'.repeat(120_000)}.name = 1`, 'max nested relations reached'],
  ];
  it.each(cases)('%s', (_name, src, message) => {
    for (const mode of ['rule', 'filter'] as const) {
      const cpu = cpuWatch(); // this thread's CPU time, which a busy machine does not stretch
      const run = () => compileFilter(src, context({ mode }));
      expect(run).toThrow(mode === 'filter' ? 'filter is too long' : message);
      try {
        run();
      } catch (err) {
        expect((err as Error).message.length).toBeLessThan(200);
      }
      expect(cpu()).toBeLessThan(1000);
    }
  });

  it('a 1 MB text in a rule is one bound parameter', () => {
    const big = 'x'.repeat(1_000_000);
    const { sql, params } = compileFilter(`title = '${big}' || title ~ '${big}'`, context());
    expect(sql.length).toBeLessThan(100);
    expect(params.map((p) => String(p).length)).toEqual([1_000_000, 1_000_002]);
    expect(matching(db, `title = '${big}'`)).toEqual([]);
  });

  it('huge sorts fail fast', () => {
    const cpu = cpuWatch(); // this thread's CPU time, which a busy machine does not stretch
    expect(() => compileSort('title,'.repeat(200_000), context())).toThrow('too many sort fields');
    expect(() => compileSort(`${'author.'.repeat(40)}name`, context())).toThrow('sort field is too long');
    expect(cpu()).toBeLessThan(1000);
  });
});

describe('SQL-looking values are only ever bound', () => {
  const evil = [
    "'; DROP TABLE posts; --",
    '" OR 1=1 --',
    "x') OR ('1'='1",
    '%" UNION SELECT password FROM users --',
    '\\\'; DELETE FROM posts; --',
    '*/ DROP TABLE posts /*',
  ];
  it.each(evil)('%s', (value) => {
    const quoted = `"${value.replaceAll('"', '\\"')}"`;
    for (const src of [`title = ${quoted}`, `title ~ ${quoted}`, `${quoted} != title && tags.name ?= ${quoted}`]) {
      const { sql, params } = compileFilter(src, context());
      expect(sql).not.toContain(value);
      expect(params.some((p) => typeof p === 'string' && p.includes(value))).toBe(true);
      expect(matching(db, src)).toEqual([]);
    }
    expect(matching(db, 'title = {:v}', { params: { v: value } })).toEqual([]);
    expect(query(db, 'SELECT count(*) FROM posts')[0][0]).toBe(4);
    expect(query(db, 'SELECT count(*) FROM users')[0][0]).toBe(3);
  });
});

describe('cost of compiling', () => {
  const rule = "author = @request.auth.id || (published = true && tags.name ?= 'red' && title ~ 'hello')";

  it('compiles a typical rule in well under a millisecond', () => {
    const request = signedIn(db, 'u1');
    const time = (ctx: CompileContext) => {
      const cpu = cpuWatch(); // this thread's CPU time, which a busy machine does not stretch
      for (let i = 0; i < 5000; i++) compileFilter(rule, ctx);
      return cpu() / 5000;
    };
    time(context({ request }));
    expect(time(context({ request }))).toBeLessThan(0.2);
  });

  it('gives the same SQL text for different values, so prepared statements are reused', () => {
    const a = compileFilter(rule, context({ request: signedIn(db, 'u1') }));
    const b = compileFilter(rule, context({ request: signedIn(db, 'u2') }));
    expect(a.sql).toBe(b.sql);
    expect(a.params).not.toEqual(b.params);
  });
});
