// The layers of docs/architecture.md ("Layers"), enforced: each folder imports only what its row of the
// table allows, and each outside package only where its owner is. Type imports count as imports; the
// import graph (dynamic import() included) is read by test/support/imports.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsIn, ROOT, sourceFiles, type Import } from '../support/imports.js';

const all = sourceFiles();
const under = (prefix: string) => all.filter((f) => f.file.startsWith(prefix));
const offenders = (list: typeof all, bad: (i: Import, file: string) => boolean) =>
  list.flatMap((f) => f.imports.filter((i) => bad(i, f.file)).map((i) => `${f.file} → ${i.spec}`));

/**
 * Leaves: modules of server/ that import nothing of the project, so every layer may use them (and main/,
 * which they let reach no further). Each is a row of the Layers table.
 */
const LEAVES = ['server/errors', 'server/json-scan', 'server/durable-files', 'server/json-object', 'server/worker-pool', 'server/loop-slice'];

/** What a part of server/ may import of server/ (beyond itself and the leaves): a folder ends in `/`, a file is named without extension. */
const LAYERS: Record<string, { may: string[]; typesOnly?: string[] }> = {
  'server/index': { may: ['server/core/', 'server/http/', 'server/store/', 'server/model/', 'server/logs/', 'server/hooks/'] },
  'server/hooks/': { may: ['server/core/', 'server/model/', 'server/store/'] },
  'server/cli': { may: ['server/index', 'server/store-postgres/'] },
  'server/import-pocketbase': { may: ['server/core/', 'server/store/', 'server/model/'] },
  'server/migrate-cli': { may: ['server/core/', 'server/store/', 'server/store-postgres/', 'server/model/', 'server/hooks/', 'server/cli', 'server/import-pocketbase'] },
  'server/move-up': { may: ['server/core/', 'server/store/', 'server/store-postgres/', 'server/model/', 'server/cli', 'server/import-pocketbase'] },
  'server/http/': { may: ['server/core/', 'server/files/', 'server/model/', 'server/logs/'], typesOnly: ['server/hooks/'] },
  'server/logs/': { may: ['server/core/', 'server/rules/compile', 'server/store/', 'server/model/'] },
  'server/core/': {
    may: ['server/rules/compile', 'server/filter/sql', 'server/filter/filter-error', 'server/filter/guard', 'server/store/', 'server/files/', 'server/model/'],
  },
  'server/files/': { may: ['server/model/'] },
  'server/rules/': { may: ['server/filter/', 'server/model/'] },
  'server/filter/': { may: [] },
  'server/store/': { may: [], typesOnly: ['server/model/'] },
  'server/store-postgres/': { may: ['server/store/', 'server/filter/dialect', 'server/filter/guard'], typesOnly: ['server/model/'] },
  'server/model/': { may: [], typesOnly: ['server/filter/sql'] },
};

/** Where each outside package the server uses may be imported (a folder ends in `/`). */
const PACKAGES: Record<string, string[]> = {
  h3: ['server/http/'],
  listhen: ['server/http/listener.ts'],
  busboy: ['server/http/'],
  'sql.js': ['server/store/'],
  postgres: ['server/store-postgres/'],
  sharp: ['server/files/'],
  yazl: ['server/files/'],
  yauzl: ['server/files/'],
  'csv-parse': ['server/core/transfer/'],
  re2js: ['server/core/fields/pattern.ts'],
  nodemailer: ['server/core/mail/mailer.ts'],
  electron: ['main/'],
};

const matches = (path: string, entry: string) => (entry.endsWith('/') ? path.startsWith(entry) : path === entry);
const layerOf = (file: string) => Object.keys(LAYERS).find((l) => matches(file.replace(/\.tsx?$/, ''), l));
const isLeaf = (target: string) => LEAVES.includes(target);
const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
const isPackage = (i: Import) => i.target === null && !i.spec.startsWith('node:');

describe('import boundaries', () => {
  it('finds the files it checks', () => {
    expect(under('server/').length).toBeGreaterThan(50);
    expect(under('server/files/').length).toBeGreaterThan(5);
    expect(under('main/').length).toBeGreaterThan(5);
    expect(under('renderer/').length).toBeGreaterThan(20);
  });

  it('reads every kind of import, and a dynamic import() as a run-time one', () => {
    const src = [
      "import type { A } from './a.js';",
      "import { type B, type C } from './b.js';",
      "import { type D, e } from './d.js';",
      "export type { F } from './f.js';",
      "export * from './g.js';",
      "const h = await import('h-package');",
      "let i: import('./i.js').I;",
      "const j = require('j-package');",
      "import './k.js';",
      "type L = typeof import('./l.js');",
      "// import { m } from './m.js'; and import('./m.js') in a comment are no imports",
      "const n = { url: 'http://example.com' }; import { o } from './o.js';",
    ].join('\n');
    expect(importsIn('server/x/y.ts', src).map((i) => [i.spec, i.typeOnly])).toEqual([
      ['./a.js', true], ['./b.js', true], ['./d.js', false], ['./f.js', true], ['./g.js', false],
      ['h-package', false], ['./i.js', true], ['j-package', false], ['./k.js', false], ['./l.js', true],
    ]);
    // a declaration after other code on its line is not read (the project writes one per line)
    expect(importsIn('server/x/y.ts', "import { p } from './p.js';\nconst q = 1; import { o } from './o.js';").map((i) => i.spec)).toEqual(['./p.js']);
    expect(importsIn('server/x/y.ts', "import { z } from '../core/z.js';")[0].target).toBe('server/core/z');
  });

  it('the table here has the rows of the Layers table in docs/architecture.md', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('\n## ', doc.indexOf('## Layers') + 1));
    const rows = [...section.matchAll(/^\| (`[^|]+`) \|/gm)].flatMap((m) => [...m[1].matchAll(/`([^`]+)`/g)].map((n) => n[1].replace(/\.ts$/, '')));
    expect(rows.sort()).toEqual([...Object.keys(LAYERS), ...LEAVES, 'main/', 'renderer/'].sort());
  });

  it('every file of server/ belongs to a row of the layer table', () => {
    expect(under('server/').filter((f) => layerOf(f.file) === undefined && !isLeaf(f.file.replace(/\.tsx?$/, ''))).map((f) => f.file)).toEqual([]);
  });

  it('the leaves import nothing of the project', () => {
    const leaves = all.filter((f) => isLeaf(f.file.replace(/\.tsx?$/, '')));
    expect(leaves).toHaveLength(LEAVES.length);
    expect(offenders(leaves, (i) => i.target !== null)).toEqual([]);
  });

  it.each(Object.keys(LAYERS))('%s imports only what its row allows', (layer) => {
    const { may, typesOnly = [] } = LAYERS[layer];
    const files = all.filter((f) => layerOf(f.file) === layer);
    expect(files.length).toBeGreaterThan(0);
    const allowed = (i: Import) =>
      i.target === null || !i.target.startsWith('server/') || isLeaf(i.target) || (layer.endsWith('/') && i.target.startsWith(layer)) ||
      may.some((m) => matches(i.target!, m)) || (i.typeOnly && typesOnly.some((m) => matches(i.target!, m)));
    expect(offenders(files, (i) => !allowed(i))).toEqual([]);
  });

  it('each outside package the server imports has an owner, and only its owner imports it', () => {
    const unowned = offenders(under('server/'), (i) => isPackage(i) && PACKAGES[packageOf(i.spec)] === undefined);
    expect(unowned).toEqual([]);
    const misplaced = offenders(all, (i, file) => isPackage(i) && PACKAGES[packageOf(i.spec)] !== undefined && !PACKAGES[packageOf(i.spec)].some((o) => matches(file, o)));
    expect(misplaced).toEqual([]);
  });

  it('the filter compiler is reached through one entry: rules/compile.ts and the SQL, error, guard and dialect primitives', () => {
    // the dialect: what the PostgreSQL store writes its statements with (server/store-postgres/)
    const entry = new Set(['server/rules/compile', 'server/filter/sql', 'server/filter/filter-error', 'server/filter/guard', 'server/filter/dialect']);
    const above = all.filter((f) => !f.file.startsWith('server/rules/') && !f.file.startsWith('server/filter/') && !f.file.startsWith('server/model/'));
    const inCompiler = (t: string) => t.startsWith('server/rules/') || t.startsWith('server/filter/');
    expect(offenders(above, (i) => i.target !== null && inCompiler(i.target) && !entry.has(i.target))).toEqual([]);
  });

  it('main/ reaches the server only through server/index.ts and the leaves; the renderer only for types', () => {
    expect(offenders(under('main/'), (i) => i.target?.startsWith('server/') === true && i.target !== 'server/index' && !isLeaf(i.target))).toEqual([]);
    expect(offenders(under('renderer/'), (i) => i.target?.startsWith('server/') === true && !i.typeOnly)).toEqual([]);
    expect(offenders(under('renderer/'), (i) => i.target?.startsWith('main/') === true && !i.typeOnly)).toEqual([]);
  });
});
