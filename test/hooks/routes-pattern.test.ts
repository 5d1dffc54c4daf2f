// routerAdd's path patterns as PocketBase's router (Go's http.ServeMux) reads them: wildcards, the rest
// of a path, `{$}`, a trailing slash, HEAD on GET, the most specific pattern first, conflicts; and which
// hook patterns a built-in route (h3's syntax) would always answer first.
import { describe, expect, it } from 'vitest';
import { builtInCovers, compareSpecificity, matchPath, methodMatches, parseRoutePattern, samePattern } from '../../server/hooks/routes-pattern.js';

const seg = (path: string) => path.slice(1).split('/');
const m = (method: string, pattern: string, path: string) => matchPath(parseRoutePattern(method, pattern), seg(path));

describe('route patterns', () => {
  it('matches literal segments, {name} and {name...}, giving the path values', () => {
    expect(m('GET', '/hello/{name}', '/hello/world')).toEqual({ name: 'world' });
    expect(m('GET', '/hello/{name}', '/hello/world/x')).toBeNull();
    expect(m('GET', '/hello/{name}', '/hello/')).toBeNull();
    expect(m('GET', '/files/{path...}', '/files/a/b/c.txt')).toEqual({ path: 'a/b/c.txt' });
    expect(m('GET', '/files/{path...}', '/files/')).toEqual({ path: '' });
    expect(m('GET', '/api/x/{a}/{b}', '/api/x/1/2')).toEqual({ a: '1', b: '2' });
    expect(m('GET', '/exact', '/exact/')).toBeNull();
  });

  it('reads a trailing slash as every path under it, and {$} as the slash alone', () => {
    expect(m('GET', '/static/', '/static/a/b')).toEqual({});
    expect(m('GET', '/', '/anything/at/all')).toEqual({});
    expect(m('GET', '/{$}', '/')).toEqual({});
    expect(m('GET', '/{$}', '/x')).toBeNull();
    expect(m('GET', '/a/{$}', '/a/')).toEqual({});
    expect(m('GET', '/a/{$}', '/a/b')).toBeNull();
  });

  it('answers HEAD with a GET pattern, and every method without one', () => {
    expect(methodMatches('GET', 'HEAD')).toBe(true);
    expect(methodMatches('GET', 'POST')).toBe(false);
    expect(methodMatches('', 'DELETE')).toBe(true);
    expect(parseRoutePattern('post', '/x').method).toBe('POST');
  });

  it('refuses what ServeMux refuses', () => {
    expect(() => parseRoutePattern('GET', 'hello')).toThrow(/must start with "\/"/);
    expect(() => parseRoutePattern('GET', 'example.com/hello')).toThrow(/host patterns are not supported/);
    expect(() => parseRoutePattern('GET', '/a{b}')).toThrow(/whole segment/);
    expect(() => parseRoutePattern('GET', '/{path...}/x')).toThrow(/last segment/);
    expect(() => parseRoutePattern('GET', '/{$}/x')).toThrow(/last segment/);
    expect(() => parseRoutePattern('GET', '/{a}/{a}')).toThrow(/duplicate wildcard/);
    expect(() => parseRoutePattern('GET', '/{1a}')).toThrow(/bad wildcard name/);
    expect(() => parseRoutePattern('GE T', '/x')).toThrow(/invalid method/);
  });

  it('prefers the most specific pattern', () => {
    const lit = parseRoutePattern('GET', '/a/b');
    const param = parseRoutePattern('GET', '/a/{x}');
    const rest = parseRoutePattern('GET', '/a/{x...}');
    const anyMethod = parseRoutePattern('', '/a/b');
    expect(compareSpecificity(lit, param)).toBeLessThan(0);
    expect(compareSpecificity(param, rest)).toBeLessThan(0);
    expect(compareSpecificity(rest, lit)).toBeGreaterThan(0);
    expect(compareSpecificity(lit, anyMethod)).toBeLessThan(0);
    expect(samePattern(parseRoutePattern('GET', '/a/{x}'), parseRoutePattern('get', '/a/{y}'))).toBe(true);
    expect(samePattern(lit, param)).toBe(false);
  });

  it('knows which hook patterns a built-in route always answers first', () => {
    const records = { method: 'GET', route: '/api/collections/:collection/records' };
    expect(builtInCovers(records, parseRoutePattern('GET', '/api/collections/{c}/records'))).toBe(true);
    expect(builtInCovers(records, parseRoutePattern('GET', '/api/collections/posts/records'))).toBe(true);
    expect(builtInCovers(records, parseRoutePattern('HEAD', '/api/collections/posts/records'))).toBe(true);
    expect(builtInCovers(records, parseRoutePattern('POST', '/api/collections/posts/records'))).toBe(false);
    expect(builtInCovers(records, parseRoutePattern('GET', '/api/collections/posts/records/extra'))).toBe(false);
    // a pattern that also matches paths no built-in answers is served there
    expect(builtInCovers(records, parseRoutePattern('GET', '/{path...}'))).toBe(false);
    expect(builtInCovers(records, parseRoutePattern('', '/api/collections/posts/records'))).toBe(false);
    expect(builtInCovers({ method: 'GET', route: '/_/**' }, parseRoutePattern('GET', '/_/my-page'))).toBe(true);
    expect(builtInCovers({ method: 'GET', route: '/api/health' }, parseRoutePattern('GET', '/api/health'))).toBe(true);
    expect(builtInCovers({ method: 'GET', route: '/api/health' }, parseRoutePattern('GET', '/api/healthz'))).toBe(false);
  });
});
