// The import graph of server/, main/ and renderer/ as written in the source, for the import-boundaries
// and import-cycles tests. Every kind of import counts: declarations, re-exports, `import('x')` calls
// (run time: the module is loaded when the call runs), `import('x').T` in types, and require(). Type-only
// means erased from the output: `import type`, `export type`, an import whose every name is marked
// `type`, and `import('x')` in a type position (after `:`, `as`, `typeof`, `<`, `|`, `&`...); any other
// `import('x')` counts as a run-time import. Comments are read past, so an example in one is no import.
// (A plain reader rather than the TypeScript parser: loading that costs seconds per test file.)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export interface Import {
  spec: string;
  typeOnly: boolean;
  /** Repository-relative path without extension for a relative import, else null. */
  target: string | null;
}

export interface SourceFile {
  /** Repository-relative path with extension. */
  file: string;
  imports: Import[];
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...files(rel));
    else if (/\.(ts|tsx|cts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** The source with its comments blanked (strings and template texts kept, so a `//` in a URL stays). */
function withoutComments(src: string): string {
  let out = '';
  for (let i = 0; i < src.length; ) {
    const c = src[i];
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      i = end === -1 ? src.length : end;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end === -1 ? src.length : end + 2;
      out += src.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Words and signs after which `import('x')` is a type, not a call. */
const TYPE_POSITION = /(?:[:<|&]|\b(?:as|satisfies|typeof|keyof|extends|implements))\s*$/;

/** The imports of a source text (exported for the tests of this reader). */
export function importsIn(file: string, text: string): Import[] {
  const src = withoutComments(text);
  const found: { at: number; found: Import }[] = [];
  const add = (at: number, spec: string, typeOnly: boolean) => {
    const target = spec.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.(js|ts|tsx|cjs|mjs)$/, '') : null;
    found.push({ at, found: { spec, typeOnly, target } });
  };
  const declarations = /^\s*(import|export)\s+(type\s+)?([^'"`;]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const m of src.matchAll(declarations)) {
    const names = /^\s*\{([^}]*)\}\s*from\s+$/.exec(m[3] ?? '');
    const allTypes = m[1] === 'import' && names !== null && names[1].trim() !== '' && names[1].split(',').every((n) => n.trim() === '' || /^type\s/.test(n.trim()));
    add(m.index, m[4], m[2] !== undefined || allTypes);
  }
  for (const m of src.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) add(m.index, m[1], TYPE_POSITION.test(src.slice(Math.max(0, m.index - 40), m.index)));
  for (const m of src.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)) add(m.index, m[1], false);
  return found.sort((a, b) => a.at - b.at).map((f) => f.found);
}

export function sourceFiles(): SourceFile[] {
  return [...files('server'), ...files('main'), ...files('renderer')].map((file) => ({ file, imports: importsIn(file, readFileSync(join(ROOT, file), 'utf8')) }));
}

/** The file an import's target names (`x` → `x.ts`, `x.tsx`, `x/index.ts`...), or null if none exists. */
export function resolveTarget(target: string): string | null {
  for (const ext of ['.ts', '.tsx', '.cts', '.mts', '/index.ts', '/index.tsx']) {
    if (existsSync(join(ROOT, target + ext))) return target + ext;
  }
  return null;
}
