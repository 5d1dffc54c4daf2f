// The map cannot drift: every file or folder that docs/architecture.md and the README name in inline
// code (`server/core/records.ts`; for short `core/records.ts`, `files/paths.ts`, `transfer/csv.ts`, a path
// from any folder of server/; `test/http/`, `http/routes/*-api.ts`, `core/fields/<type>.ts`, or a bare
// `records-read.ts`) exists in the repository.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/imports.js';

const ROOTS = ['server', 'renderer', 'main', 'test', 'bench', 'scripts', 'docs'];
/** Every folder below server/, by its name: the map names them without the folders above (`transfer/csv.ts`). */
function serverFolders(): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const rel = `${dir}/${name}`;
      if (!statSync(join(ROOT, rel)).isDirectory()) continue;
      byName.set(name, [...(byName.get(name) ?? []), rel]);
      walk(rel);
    }
  };
  walk('server');
  return byName;
}
const SERVER_FOLDERS = serverFolders();
const SOURCE = /\.(ts|tsx|cts|mjs|cjs)$/;

/** Path-like words of a Markdown text's inline code spans (fenced blocks are examples, not names). */
export function namedPaths(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  const words = [...prose.matchAll(/`([^`\n]+)`/g)].flatMap((m) => m[1].split(/[\s,()]+/));
  return words
    .map((w) => w.replace(/[.:;]+$/, ''))
    .filter((w) => {
      const first = w.split('/')[0];
      return w.includes('/') ? ROOTS.includes(first) || SERVER_FOLDERS.has(first) : SOURCE.test(w) && !w.startsWith('.');
    });
}

let files: string[] | null = null;
/** Every file of the repository's own folders, relative to the root. */
function allFiles(): string[] {
  if (files) return files;
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const rel = dir === '' ? name : `${dir}/${name}`;
      if (statSync(join(ROOT, rel)).isDirectory()) walk(rel);
      else out.push(rel);
    }
  };
  for (const root of ROOTS) if (existsSync(join(ROOT, root))) walk(root);
  files = out;
  return out;
}

/** `*` and `<name>` stand for part of one path segment. */
function pattern(path: string): RegExp {
  const body = path.split(/(\*|<[^>]+>)/).map((part, i) => (i % 2 === 1 ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`);
}

function existsAt(path: string): boolean {
  if (/[*<]/.test(path)) {
    const re = pattern(path.replace(/\/$/, ''));
    return existsSync(join(ROOT, dirname(path))) && allFiles().some((f) => re.test(f));
  }
  return existsSync(join(ROOT, path));
}

function exists(named: string): boolean {
  if (!named.includes('/')) return existsSync(join(ROOT, named)) || allFiles().some((f) => f.endsWith(`/${named}`));
  const first = named.split('/')[0];
  if (ROOTS.includes(first)) return existsAt(named);
  const rest = named.slice(first.length);
  return (SERVER_FOLDERS.get(first) ?? []).some((folder) => existsAt(folder + rest));
}

describe('paths named in the docs', () => {
  it('reads path-like names from inline code only', () => {
    expect(namedPaths('see `server/a.ts` and `core/b.ts`, `x.tsx`; `/api/health`, `sql.js`, `multipart/form-data`\n```\nserver/c.ts\n```'))
      .toEqual(['server/a.ts', 'core/b.ts', 'x.tsx']);
    expect(exists('server/core/records.ts') && exists('core/records.ts') && exists('records-read.ts')).toBe(true);
    expect(exists('http/routes/*-api.ts') && exists('core/fields/<type>.ts') && exists('test/http/')).toBe(true);
    expect(exists('core/record.ts') || exists('records-reader.ts') || exists('http/routes/*-route.ts') || exists('test/nowhere/')).toBe(false);
    // every folder of server/ is checked by its name, however deep: files/, transfer/, writes/, realtime/
    expect(namedPaths('`files/paths.ts` `transfer/csv.ts` `writes/funnel.ts` `routes/records-api.ts`')).toHaveLength(4);
    expect(exists('files/paths.ts') && exists('transfer/csv.ts') && exists('writes/funnel.ts') && exists('routes/records-api.ts')).toBe(true);
    expect(exists('files/path.ts') || exists('transfer/cvs.ts') || exists('writes/funnels.ts')).toBe(false);
  });

  it.each(['docs/architecture.md', 'README.md'])('every path %s names exists', (doc) => {
    const named = namedPaths(readFileSync(join(ROOT, doc), 'utf8'));
    expect(named.length).toBeGreaterThan(20);
    expect([...new Set(named)].filter((p) => !exists(p))).toEqual([]);
  });
});
