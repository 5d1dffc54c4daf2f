// design.md's layout, enforced: imports point down only, and each outside dependency stays in its folder.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...files(rel));
    else if (/\.(ts|tsx|cts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

interface Import { spec: string; typeOnly: boolean; target: string | null }

function importsOf(file: string): Import[] {
  const src = readFileSync(join(ROOT, file), 'utf8');
  const out: Import[] = [];
  const re = /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const m of src.matchAll(re)) {
    const spec = m[3];
    const target = spec.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.(js|ts|tsx|cjs|mjs)$/, '') : null;
    out.push({ spec, typeOnly: m[2] !== undefined, target });
  }
  for (const m of src.matchAll(/require\(['"]([^'"]+)['"]\)/g)) out.push({ spec: m[1], typeOnly: false, target: null });
  return out;
}

const all = [...files('server'), ...files('main'), ...files('renderer')].map((f) => ({ file: f, imports: importsOf(f) }));
const under = (prefix: string) => all.filter((f) => f.file.startsWith(prefix));
const offenders = (list: typeof all, bad: (i: Import, file: string) => boolean) =>
  list.flatMap((f) => f.imports.filter((i) => bad(i, f.file)).map((i) => `${f.file} → ${i.spec}`));

describe('import boundaries', () => {
  it('finds the files it checks', () => {
    expect(under('server/').length).toBeGreaterThan(50);
    expect(under('main/').length).toBeGreaterThan(5);
    expect(under('renderer/').length).toBeGreaterThan(20);
  });

  it('only main/ imports electron', () => {
    expect(offenders(all.filter((f) => !f.file.startsWith('main/')), (i) => i.spec === 'electron')).toEqual([]);
  });

  it('only server/http/ imports h3', () => {
    expect(offenders(under('server/').filter((f) => !f.file.startsWith('server/http/')), (i) => i.spec === 'h3' || i.spec.startsWith('h3/'))).toEqual([]);
  });

  it('only server/store/ imports sql.js', () => {
    expect(offenders(all.filter((f) => !f.file.startsWith('server/store/')), (i) => i.spec === 'sql.js')).toEqual([]);
  });

  it('server/filter/ is pure: nothing outside its folder', () => {
    expect(offenders(under('server/filter/'), (i) => i.target !== null && !i.target.startsWith('server/filter'))).toEqual([]);
  });

  it('imports point down: core never imports http; rules and store import core only for the shared model types', () => {
    expect(offenders(under('server/core/'), (i) => i.target?.startsWith('server/http') === true)).toEqual([]);
    const upward = (i: Import) => i.target !== null && (i.target.startsWith('server/http') || (i.target.startsWith('server/core') && i.target !== 'server/core/types'));
    expect(offenders(under('server/rules/'), upward)).toEqual([]);
    expect(offenders(under('server/store/'), (i) => upward(i) || (i.target === 'server/core/types' && !i.typeOnly))).toEqual([]);
  });

  it('main/ reaches the server only through server/index.ts; the renderer only for types', () => {
    expect(offenders(under('main/'), (i) => i.target?.startsWith('server/') === true && i.target !== 'server/index')).toEqual([]);
    expect(offenders(under('renderer/'), (i) => i.target?.startsWith('server/') === true && !i.typeOnly)).toEqual([]);
    expect(offenders(under('renderer/'), (i) => i.target?.startsWith('main/') === true && !i.typeOnly)).toEqual([]);
  });
});
