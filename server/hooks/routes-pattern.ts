// The path patterns of routerAdd as PocketBase's router reads them (Go's http.ServeMux): segments
// separated by `/`, a segment either literal or a whole `{name}` (one segment), `{name...}` as the last
// one (the rest of the path, maybe empty), `{$}` as the last one (the path ends with its slash), and a
// pattern ending in `/` matching every path under it. A GET pattern also answers HEAD; no method
// answers every method. Where several patterns match a request, the most specific wins (a literal
// segment over `{name}`, `{name}` over the rest); two patterns that match the same requests conflict.
// Also: whether a built-in route of the HTTP app already answers every request a pattern matches.

export class RoutePatternError extends Error {}

type Segment = { kind: 'literal'; text: string } | { kind: 'param'; name: string } | { kind: 'rest'; name: string | null } | { kind: 'end' };

export interface RoutePattern {
  /** Upper case; '' for every method. */
  method: string;
  /** As written. */
  path: string;
  segments: Segment[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function parseRoutePattern(method: string, path: string): RoutePattern {
  const m = String(method ?? '').toUpperCase();
  if (m !== '' && !TOKEN.test(m)) throw new RoutePatternError(`invalid method ${JSON.stringify(method)}`);
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new RoutePatternError(`invalid route path ${JSON.stringify(path)}: it must start with "/" (host patterns are not supported)`);
  }
  const parts = path.slice(1).split('/');
  const segments: Segment[] = [];
  const names = new Set<string>();
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    if (part === '' && last) {
      // "/a/" matches every path under /a/ ("/" itself matches every path)
      segments.push({ kind: 'rest', name: null });
      return;
    }
    if (!part.includes('{') && !part.includes('}')) {
      segments.push({ kind: 'literal', text: part });
      return;
    }
    const w = /^\{([^{}]*)\}$/.exec(part);
    if (!w) throw new RoutePatternError(`invalid route path ${JSON.stringify(path)}: a wildcard must be a whole segment`);
    const inner = w[1];
    if (inner === '$') {
      if (!last) throw new RoutePatternError(`invalid route path ${JSON.stringify(path)}: {$} must be the last segment`);
      segments.push({ kind: 'end' });
      return;
    }
    const rest = inner.endsWith('...');
    const name = rest ? inner.slice(0, -3) : inner;
    if (!NAME.test(name)) throw new RoutePatternError(`invalid route path ${JSON.stringify(path)}: bad wildcard name ${JSON.stringify(name)}`);
    if (names.has(name)) throw new RoutePatternError(`invalid route path ${JSON.stringify(path)}: duplicate wildcard name ${JSON.stringify(name)}`);
    names.add(name);
    if (rest && !last) throw new RoutePatternError(`invalid route path ${JSON.stringify(path)}: {${inner}} must be the last segment`);
    segments.push(rest ? { kind: 'rest', name } : { kind: 'param', name });
  });
  return { method: m, path, segments };
}

export function methodMatches(pattern: string, method: string): boolean {
  return pattern === '' || pattern === method || (pattern === 'GET' && method === 'HEAD');
}

/**
 * The path values when `pattern` matches `segments` (the request path split on `/` after the leading
 * one, each percent-decoded), else null.
 */
export function matchPath(pattern: RoutePattern, segments: readonly string[]): Record<string, string> | null {
  const values: Record<string, string> = {};
  const ps = pattern.segments;
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i];
    if (p.kind === 'rest') {
      if (p.name !== null) Object.defineProperty(values, p.name, { value: segments.slice(i).join('/'), enumerable: true });
      return values;
    }
    if (p.kind === 'end') return i === segments.length - 1 && segments[i] === '' ? values : null;
    if (i >= segments.length) return null;
    if (p.kind === 'literal') {
      if (segments[i] !== p.text) return null;
    } else {
      if (segments[i] === '') return null;
      Object.defineProperty(values, p.name, { value: segments[i], enumerable: true });
    }
  }
  return ps.length === segments.length ? values : null;
}

const RANK = { literal: 0, end: 0, param: 1, rest: 2 } as const;

/** Negative when `a` is more specific than `b` (the one to answer a request both match). */
export function compareSpecificity(a: RoutePattern, b: RoutePattern): number {
  const n = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const sa = a.segments[i];
    const sb = b.segments[i];
    if (!sa || !sb) return sa ? -1 : 1; // the longer reaches further
    const d = RANK[sa.kind] - RANK[sb.kind];
    if (d !== 0) return d;
  }
  if (a.method !== b.method) return a.method === '' ? 1 : b.method === '' ? -1 : 0;
  return 0;
}

/** Whether two patterns match exactly the same requests (ServeMux refuses the second as a conflict). */
export function samePattern(a: RoutePattern, b: RoutePattern): boolean {
  if (a.method !== b.method || a.segments.length !== b.segments.length) return false;
  return a.segments.every((s, i) => {
    const t = b.segments[i];
    if (s.kind !== t.kind) return false;
    return s.kind !== 'literal' || s.text === (t as { text: string }).text;
  });
}

/**
 * A built-in route of the HTTP app in h3's syntax (`/api/collections/:collection/records`, `/_/**`):
 * whether it answers every request `pattern` matches (a hook route it covers would never be reached).
 */
export function builtInCovers(builtIn: { method?: string; route?: string }, pattern: RoutePattern): boolean {
  const bm = (builtIn.method ?? '').toUpperCase();
  if (bm !== '' && !(pattern.method !== '' && methodMatches(bm, pattern.method))) return false;
  const route = builtIn.route ?? '';
  if (!route.startsWith('/')) return false;
  const bs = route.slice(1).split('/');
  const ps = pattern.segments;
  for (let i = 0; i < bs.length; i++) {
    const b = bs[i];
    if (b === '**' || b.startsWith('**:')) return true;
    const p = ps[i];
    if (!p || p.kind === 'rest' || p.kind === 'end') return false;
    if (b === '*' || b.startsWith(':')) continue;
    if (p.kind !== 'literal' || p.text !== b) return false;
  }
  return bs.length === ps.length;
}
