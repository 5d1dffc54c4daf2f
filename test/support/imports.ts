// The import graph of server/, main/ and renderer/ as written in the source (type imports, re-exports,
// `import()` types and require() included), for the import-boundaries and import-cycles tests.
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

function importsOf(file: string): Import[] {
  const src = readFileSync(join(ROOT, file), 'utf8');
  const out: Import[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    const target = spec.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.(js|ts|tsx|cjs|mjs)$/, '') : null;
    out.push({ spec, typeOnly, target });
  };
  const re = /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const m of src.matchAll(re)) add(m[3], m[2] !== undefined);
  for (const m of src.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) add(m[1], true);
  for (const m of src.matchAll(/require\(['"]([^'"]+)['"]\)/g)) add(m[1], false);
  return out;
}

export function sourceFiles(): SourceFile[] {
  return [...files('server'), ...files('main'), ...files('renderer')].map((file) => ({ file, imports: importsOf(file) }));
}

/** The file an import's target names (`x` → `x.ts`, `x.tsx`, `x/index.ts`...), or null if none exists. */
export function resolveTarget(target: string): string | null {
  for (const ext of ['.ts', '.tsx', '.cts', '.mts', '/index.ts', '/index.tsx']) {
    if (existsSync(join(ROOT, target + ext))) return target + ext;
  }
  return null;
}
