// The layers of docs/architecture.md, enforced: imports point down only, and each outside dependency stays in its folder.
import { describe, expect, it } from 'vitest';
import { sourceFiles, type Import } from '../support/imports.js';

const all = sourceFiles();
/** Modules with no project imports, shared by every layer (durable file writes, what a JSON object is, the worker pool). */
const LEAVES = new Set(['server/durable-files', 'server/json-object', 'server/worker-pool']);
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

  it('the filter compiler is a language over a resolver: the domain sits on top, reached through one entry', () => {
    // server/filter/ (lexer, parser, AST → SQL over FieldResolver) imports nothing of the domain, not
    // even types: checked above. server/rules/ (the record resolver) reaches down only.
    const rulesMay = (t: string) => t.startsWith('server/filter/') || t.startsWith('server/rules/') || t === 'server/core/types' || t === 'server/errors';
    expect(offenders(under('server/rules/'), (i) => i.target !== null && !rulesMay(i.target))).toEqual([]);
    // Everything above uses the compiler's public entry, the SQL and error primitives and the guard
    // functions the server registers, nothing else.
    const entry = new Set(['server/rules/compile', 'server/filter/sql', 'server/filter/filter-error', 'server/filter/guard']);
    const above = all.filter((f) => !f.file.startsWith('server/rules/') && !f.file.startsWith('server/filter/'));
    const inCompiler = (t: string) => t.startsWith('server/rules/') || t.startsWith('server/filter/');
    expect(offenders(above, (i) => i.target !== null && inCompiler(i.target) && !entry.has(i.target))).toEqual([]);
  });

  it('imports point down: core never imports http; rules and store import core only for the shared model types', () => {
    expect(offenders(under('server/core/'), (i) => i.target?.startsWith('server/http') === true)).toEqual([]);
    const upward = (i: Import) => i.target !== null && (i.target.startsWith('server/http') || (i.target.startsWith('server/core') && i.target !== 'server/core/types'));
    expect(offenders(under('server/rules/'), upward)).toEqual([]);
    expect(offenders(under('server/store/'), (i) => upward(i) || (i.target === 'server/core/types' && !i.typeOnly))).toEqual([]);
  });

  it('the leaves every layer may use import nothing of the project', () => {
    expect(offenders(all.filter((f) => LEAVES.has(f.file.replace(/\.tsx?$/, ''))), (i) => i.target !== null)).toEqual([]);
  });

  it('main/ reaches the server only through server/index.ts and the leaves; the renderer only for types', () => {
    expect(offenders(under('main/'), (i) => i.target?.startsWith('server/') === true && i.target !== 'server/index' && !LEAVES.has(i.target))).toEqual([]);
    expect(offenders(under('renderer/'), (i) => i.target?.startsWith('server/') === true && !i.typeOnly)).toEqual([]);
    expect(offenders(under('renderer/'), (i) => i.target?.startsWith('main/') === true && !i.typeOnly)).toEqual([]);
  });
});
