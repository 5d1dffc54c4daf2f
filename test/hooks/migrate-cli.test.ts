// `npm run migrate -- up | down [N] | create NAME | collections` (server/migrate-cli.ts) on a desktop
// data folder, in process: PocketBase's messages and templates; a `collections` snapshot applied by a
// fresh server gives back the same schema.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BLANK_TEMPLATE, runMigrate } from '../../server/migrate-cli.js';
import { startServer } from '../../server/index.js';
import { openStore } from '../../server/store/db.js';
import { exportSchema } from '../../server/core/transfer/schema-export.js';
import { createCore } from '../../server/core/index.js';

function folders() {
  const root = mkdtempSync(join(tmpdir(), 'migrate-cli-'));
  const data = join(root, 'pb_data');
  const migrations = join(root, 'pb_migrations');
  return { root, data, migrations, args: ['--dir', data, '--migrations', migrations] };
}

async function run(argv: string[], ask: ((q: string) => Promise<string>) | null = null): Promise<{ code: number; lines: string[]; asked: string[] }> {
  const lines: string[] = [];
  const asked: string[] = [];
  const code = await runMigrate(argv, (line) => lines.push(line), ask && (async (q) => (asked.push(q), ask(q))));
  return { code, lines, asked };
}

const TAGS = `/// <reference path="../pb_data/types.d.ts" />
migrate((app) => {
  const tags = new Collection({ type: "base", name: "tags", listRule: "", fields: [new TextField({ name: "label", required: true })] });
  app.save(tags);
  const record = new Record(tags);
  record.set("label", "first");
  app.save(record);
}, (app) => {
  app.delete(app.findCollectionByNameOrId("tags"));
})
`;

async function collectionNames(dir: string): Promise<string[]> {
  const store = await openStore({ dir });
  try {
    return (await store.all<{ name: string }>('SELECT "name" FROM "_collections"')).map((r) => r.name).sort();
  } finally {
    await store.close();
  }
}

describe('npm run migrate', () => {
  it('create NAME writes the blank template as <unix time>_<snake_case name>.js', async () => {
    const f = folders();
    const before = Math.floor(Date.now() / 1000);
    const r = await run(['create', 'AddPosts index', ...f.args]);
    expect(r.code).toBe(0);
    const [file] = readdirSync(f.migrations);
    const m = /^(\d+)_add_posts_index\.js$/.exec(file);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(before);
    expect(readFileSync(join(f.migrations, file), 'utf8')).toBe(BLANK_TEMPLATE);
    expect(r.lines).toEqual([`Successfully created file ${JSON.stringify(join(f.migrations, file))}`]);
    // in a terminal it asks first; "no" cancels
    const cancelled = await run(['create', 'other', ...f.args], async () => 'n');
    expect(cancelled.asked[0]).toMatch(/^Do you really want to create migration ".+_other\.js"\? /);
    expect(cancelled.lines).toEqual(['The command has been cancelled']);
    expect(readdirSync(f.migrations)).toHaveLength(1);
    expect((await run(['create', ...f.args])).code).toBe(1); // Missing migration file name
  });

  it('up applies once; down asks (or needs --yes) and reverts the last applied', async () => {
    const f = folders();
    await run(['create', 'x', ...f.args]); // makes the folder
    for (const name of readdirSync(f.migrations)) writeFileSync(join(f.migrations, name), BLANK_TEMPLATE);
    writeFileSync(join(f.migrations, '1700000000_tags.js'), TAGS);
    const up = await run(['up', ...f.args]);
    expect(up.code).toBe(0);
    expect(up.lines).toEqual(['Applied 1700000000_tags.js', `Applied ${readdirSync(f.migrations).sort()[1]}`]);
    expect(await collectionNames(f.data)).toContain('tags');
    expect((await run(['up', ...f.args])).lines).toEqual(['No new migrations to apply.']);

    // the last applied is the blank one (applied after tags): down 2 reverts both, newest first
    const refused = await run(['down', '2', ...f.args]);
    expect(refused.code).toBe(1);
    expect(await collectionNames(f.data)).toContain('tags');
    const down = await run(['down', '2', ...f.args], async () => 'y');
    expect(down.asked[0]).toContain('Do you really want to revert the last 2 applied migration(s)?');
    expect(down.lines).toEqual([`Reverted ${readdirSync(f.migrations).sort()[1]}`, 'Reverted 1700000000_tags.js']);
    expect(await collectionNames(f.data)).not.toContain('tags');
    expect((await run(['down', '--yes', ...f.args])).lines).toEqual(['No migrations to revert.']);
  });

  it('collections writes a snapshot a fresh server applies back to the same schema', async () => {
    const f = folders();
    writeFileSync(join(mkdirp(f.migrations), '1700000000_tags.js'), TAGS);
    writeFileSync(join(f.migrations, '1700000100_posts.js'), `migrate((app) => {
  const posts = new Collection({ name: "posts", type: "base", viewRule: "", fields: [
    { name: "title", type: "text", max: 80 },
    { name: "tags", type: "relation", collectionId: app.findCollectionByNameOrId("tags").id, maxSelect: 5 },
  ], indexes: ["CREATE UNIQUE INDEX idx_title ON posts (title)"] });
  app.save(posts);
})
`);
    expect((await run(['up', ...f.args])).code).toBe(0);
    const snap = folders();
    const r = await run(['collections', '--dir', f.data, '--migrations', snap.migrations]);
    expect(r.code).toBe(0);
    const [file] = readdirSync(snap.migrations);
    expect(file).toMatch(/^\d+_collections_snapshot\.js$/);
    const text = readFileSync(join(snap.migrations, file), 'utf8');
    expect(text.startsWith('/// <reference path="../pb_data/types.d.ts" />\nmigrate((app) => {\n  const snapshot = [\n')).toBe(true);
    expect(text.endsWith('\n  return app.importCollections(snapshot, false);\n}, (app) => {\n  return null;\n})\n')).toBe(true);

    const source = await openStore({ dir: f.data });
    const expected = exportSchema((await createCore(source)).registry.all(), null);
    await source.close();
    const fresh = await startServer({ dir: snap.data, migrationsDir: snap.migrations, port: 0, uiDir: null, log: () => {} });
    try {
      // the fresh server's own `users` took the snapshot's by name: its id is that one's, all else is equal
      const usersId = (id: unknown[]) => (id.find((c) => (c as { name: string }).name === 'users') as { id: string }).id;
      const got = JSON.parse(JSON.stringify(exportSchema(fresh.core.registry.all(), null)).replaceAll(usersId(exportSchema(fresh.core.registry.all(), null)), usersId(expected)));
      expect(got.map((c: { name: string }) => c.name).sort()).toEqual(expected.map((c) => c.name).sort());
      for (const c of expected) expect(got.find((g: { name: string }) => g.name === c.name)).toEqual(c);
    } finally {
      await fresh.close();
    }
  });

  it('refuses an unknown command', async () => {
    expect((await run(['sideways'])).code).toBe(2);
  });
});

function mkdirp(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
