// JS migrations on a team server: nodes starting together on one PostgreSQL database with the same
// pb_migrations folder apply each file once (hooks/migrations.ts: an advisory lock, `_migrations`
// checked again inside the file's transaction), and every node starts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { hooksFolder } from '../hooks/support.js';

describePostgres('JS migrations on nodes starting together', () => {
  let db: FreshDatabase;
  const nodes: RunningServer[] = [];
  beforeAll(async () => {
    db = await freshDatabase('migrations_nodes');
  });
  afterAll(async () => {
    for (const n of nodes) await n.close();
    await db.drop();
  });

  it('each file runs once across the nodes; all of them start', async () => {
    const dir = hooksFolder({
      '1700000000_tags.js': `migrate((app) => {
  const tags = new Collection({ name: "tags", type: "base", fields: [{ name: "label", type: "text" }] });
  app.save(tags);
  app.save(new Record(tags, { label: "seeded once" }));
});
`,
      // not idempotent: run twice, it would add a second row
      '1700000100_more.js': `migrate((app) => {
  sleep(50);
  app.db().insert("tags", { id: $security.randomStringWithAlphabet(15, "abcdefghijklmnopqrstuvwxyz0123456789"), label: "inserted once" }).execute();
});
`,
    });
    const start = () => startServer({ dir: null, openStore: () => openPostgresStore({ url: db.url, max: 4 }), migrationsDir: dir, port: 0, uiDir: null, log: () => undefined });
    nodes.push(...(await Promise.all([start(), start(), start()])));
    const labels = (await db.sql`SELECT "label" FROM "tags" ORDER BY "label"`).map((r) => r.label);
    expect(labels).toEqual(['inserted once', 'seeded once']);
    expect((await db.sql`SELECT "file" FROM "_migrations" ORDER BY "file"`).map((r) => r.file)).toEqual(['1700000000_tags.js', '1700000100_more.js']);
    for (const n of nodes) expect(n.core.registry.get('tags')).toBeDefined();
  });
});
