// The bus between nodes (store-postgres/bus.ts) on a real PostgreSQL, three stores on one database as
// three nodes: entries appended inside a write reach every node once, in commit order (also when the
// transaction that appended first commits last), never when it rolls back, with contiguous positions;
// a schema change reaches them from the trigger; the doorbell survives its connection being killed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../server/store-postgres/store.js';
import type { BusEntry } from '../../server/store/contract.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';

let db: FreshDatabase;
let a: PostgresStore;
let b: PostgresStore;
let c: PostgresStore;
const heard: BusEntry[] = [];
const errors: unknown[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const dataOf = (kind: string) => heard.filter((e) => e.kind === kind).map((e) => e.data);

describePostgres('the bus between nodes', () => {
  beforeAll(async () => {
    db = await freshDatabase('bus');
    // the poll is made too slow to matter: what arrives, arrives by the doorbell (or its catch-up)
    const open = () => openPostgresStore({ url: db.url, max: 3, busTiming: { pollMs: 3_600_000 }, report: (e) => errors.push(e) });
    [a, b, c] = [await open(), await open(), await open()];
    c.bus.listen({ entries: (es) => void heard.push(...es), missed: () => { throw new Error('nothing was pruned'); } }, await c.bus.position());
    await until('the doorbell', () => c.bus.listens > 0);
  });
  afterAll(async () => {
    await Promise.all([a, b, c].map((s) => s?.close()));
    await db?.drop();
  });

  it('delivers in commit order when the transaction that took a position first commits last, and never a rolled-back one', async () => {
    heard.length = 0;
    const order: string[] = [];
    // two sessions append as the stores do (deskbase_bus_append), the first holding its transaction
    // open after taking its position: the second must wait for it, and take the next position
    const [one, two] = [await db.sql.reserve(), await db.sql.reserve()];
    try {
      await one.unsafe('BEGIN');
      await one.unsafe(`SELECT deskbase_bus_append('records', '[{"n":"a1"}]')`);
      const second = (async () => {
        await two.unsafe('BEGIN');
        await two.unsafe(`SELECT deskbase_bus_append('records', '[{"n":"b1"},{"n":"b2"}]')`);
        await two.unsafe('COMMIT');
        order.push('b');
      })();
      await sleep(400);
      order.push('a1');
      await one.unsafe('COMMIT');
      await second;
    } finally {
      one.release();
      two.release();
    }
    // a rolled-back append takes no position that stays taken
    await a.write(async (tx) => {
      await a.bus.append(tx, ['{"n":"never"}']);
      throw new Error('roll back');
    }).catch(() => order.push('rolled back'));
    await b.write(async (tx) => b.bus.append(tx, ['{"n":"b3"}']));
    await until('four entries', () => heard.length >= 4);
    await sleep(100);
    expect(order).toEqual(['a1', 'b', 'rolled back']);
    expect(dataOf('records')).toEqual(['{"n":"a1"}', '{"n":"b1"}', '{"n":"b2"}', '{"n":"b3"}']);
    const pos = heard.map((e) => e.pos);
    expect(pos).toEqual(pos.map((_, i) => pos[0] + i)); // contiguous
    expect(heard.every((e) => !e.mine)).toBe(true); // c wrote none of them
    // entries of one transaction share it
    expect(heard[1].tx).toBe(heard[2].tx);
    expect(heard[0].tx).not.toBe(heard[1].tx);
  });

  it('refuses an append outside a write transaction of its own store', async () => {
    await expect(a.write(async () => b.bus.append({} as never, ['{}']))).rejects.toThrow(/inside a write transaction/);
  });

  it('carries entries past NOTIFY\'s 8,000 bytes, and marks a node\'s own entries as its own', async () => {
    heard.length = 0;
    const big = JSON.stringify({ text: 'x'.repeat(100_000) });
    await c.write(async (tx) => c.bus.append(tx, [big]));
    await until('the big entry', () => heard.length >= 1);
    expect(heard[0].data).toBe(big);
    expect(heard[0].mine).toBe(true);
  });

  it('reads a page of 2 MiB at a time (one entry at least): large entries arrive whole, in order, over several reads', async () => {
    heard.length = 0;
    const calls: number[] = [];
    const huge = [0, 1, 2].map((i) => JSON.stringify({ i, text: String(i).repeat(5 * 1024 * 1024) }));
    const d = await openPostgresStore({ url: db.url, max: 1, busTiming: { pollMs: 3_600_000 } });
    try {
      d.bus.listen({ entries: (es) => void calls.push(es.length), missed: () => {} }, await d.bus.position());
      await c.write(async (tx) => c.bus.append(tx, huge));
      await until('the three large entries', () => heard.length >= 3 && calls.reduce((n, x) => n + x, 0) >= 3, 15_000);
      expect(heard.map((e) => e.data)).toEqual(huge);
      expect(calls).toEqual([1, 1, 1]);
    } finally {
      await d.close();
    }
  });

  it('appends a schema change from the trigger on _collections, whatever wrote it', async () => {
    heard.length = 0;
    const def = { id: 'pbc_t1', name: 't1', type: 'base', fields: [{ id: 'f1', name: 'id', type: 'text' }], indexes: [] };
    await a.write(async (tx) => {
      await tx.run('INSERT INTO "_collections" ("id", "name", "data") VALUES (?, ?, ?)', [def.id, def.name, JSON.stringify(def)]);
      await tx.run('UPDATE "_collections" SET "data" = ? WHERE "id" = ?', [JSON.stringify({ ...def, listRule: '' }), def.id]);
    });
    await b.write(async (tx) => tx.run('DELETE FROM "_collections" WHERE "id" = ?', [def.id]));
    await until('three schema entries', () => heard.length >= 3);
    const schema = dataOf('schema').map((d) => JSON.parse(d) as { op: string; id: string; data: { listRule?: string } });
    expect(schema.map((s) => s.op)).toEqual(['INSERT', 'UPDATE', 'DELETE']);
    expect(schema.every((s) => s.id === def.id)).toBe(true);
    expect(schema[1].data.listRule).toBe('');
  });

  it('LISTENs again after its connection is killed, and catches up on what was committed meanwhile', async () => {
    heard.length = 0;
    const before = c.bus.listens;
    const killed = await db.sql<{ ok: boolean }[]>`
      SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
      WHERE datname = ${db.name} AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`;
    expect(killed.length).toBeGreaterThanOrEqual(1);
    // committed while the doorbell is down or coming back: its notification may be lost
    await a.write(async (tx) => a.bus.append(tx, ['{"n":"during"}']));
    await until('the doorbell again', () => c.bus.listens > before);
    await until('the entry committed during the gap', () => heard.length >= 1);
    await a.write(async (tx) => a.bus.append(tx, ['{"n":"after"}']));
    await until('the entry after', () => heard.length >= 2);
    expect(dataOf('records')).toEqual(['{"n":"during"}', '{"n":"after"}']);
  });

  it('prunes entries too far behind the head, or too old', async () => {
    const d = await openPostgresStore({ url: db.url, max: 1, busTiming: { retainEntries: 2 } });
    try {
      for (let i = 0; i < 4; i++) await d.write(async (tx) => d.bus.append(tx, [`{"p":${i}}`]));
      await d.bus.prune();
      const head = await d.bus.position();
      const left = await db.sql<{ pos: number }[]>`SELECT "pos"::int AS pos FROM "_bus_outbox" ORDER BY "pos"`;
      expect(left.map((r) => r.pos)).toEqual([head - 1, head]);
    } finally {
      await d.close();
    }
    const e = await openPostgresStore({ url: db.url, max: 1, busTiming: { retainMs: 0 } });
    try {
      await e.bus.prune();
      expect(await db.sql`SELECT 1 FROM "_bus_outbox"`).toHaveLength(0);
    } finally {
      await e.close();
    }
  });

  it('prunes old entries, and a node that finds its next one pruned is told', async () => {
    const missed: number[] = [];
    const seen: BusEntry[] = [];
    const from = await b.bus.position();
    await a.write(async (tx) => a.bus.append(tx, ['{"n":"gone"}']));
    await db.sql`DELETE FROM "_bus_outbox" WHERE "pos" <= ${from + 1}`;
    await a.write(async (tx) => a.bus.append(tx, ['{"n":"kept"}']));
    b.bus.listen({ entries: (es) => void seen.push(...es), missed: () => void missed.push(seen.length) }, from);
    await until('the kept entry', () => seen.length >= 1);
    expect(missed).toEqual([0]);
    expect(seen.map((e) => e.data)).toEqual(['{"n":"kept"}']);
    expect(errors.some((e) => String(e).includes('pruned'))).toBe(true);
  });
});
