// The node's write turn between clients (store-postgres/store.ts `turn`), before/after: client A queues
// a flood of writes at once, client B then asks for one write; how long B's write takes, and how many
// of A's committed before it (the database's own numbering), on an older commit's store and on this
// working tree's, side by side in one run (alternating rounds, one PostgreSQL 15 on loopback started
// here with durable settings, a database each).
//
//   npx tsx bench/write-turn.ts <commit> [--rounds 10] [--flood 50] [--slow-ms 0]
//
// --slow-ms makes each of A's writes hold the turn that much longer (pg_sleep inside it): slow writes.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { createDatabase, findPostgresBin, POSTGRES_MISSING, startCluster } from '../scripts/postgres-cluster.js';
import type { PostgresStore, PostgresStoreOptions } from '../server/store-postgres/store.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

type Open = (options: PostgresStoreOptions) => Promise<PostgresStore>;

/** The server of `commit`, exported with `git archive`, borrowing this tree's node_modules. */
async function exportServer(commit: string, into: string): Promise<void> {
  await mkdir(into, { recursive: true });
  const archive = execFileSync('git', ['-C', ROOT, 'archive', '--format=tar', commit, 'server', 'package.json'], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', into], { input: archive });
  await symlink(join(ROOT, 'node_modules'), join(into, 'node_modules'), 'dir');
}

interface Round {
  /** B's write, asked for once A's were queued: from the ask to its commit answered. */
  bMs: number;
  /** A's writes committed before B's. */
  aBefore: number;
  /** A's whole flood, from the first ask to the last commit. */
  floodMs: number;
}

async function round(store: PostgresStore, sql: postgres.Sql, flood: number, slowMs: number): Promise<Round> {
  await sql`TRUNCATE "turns" RESTART IDENTITY`;
  const write = (client: string, name: string, slow: number) => store.asClient(client, () => store.write(async (tx) => {
    await tx.run('INSERT INTO "turns" ("name") VALUES (?)', [name]);
    if (slow > 0) await tx.get(`SELECT pg_sleep(${slow / 1000}) AS "s"`);
  }));
  const from = performance.now();
  const floodDone = Promise.all(Array.from({ length: flood }, (_, i) => write('A', `a${i}`, slowMs))).then(() => performance.now() - from);
  const bFrom = performance.now();
  const bMs = await write('B', 'b', 0).then(() => performance.now() - bFrom);
  const floodMs = await floodDone;
  const names = (await sql<{ name: string }[]>`SELECT "name" FROM "turns" ORDER BY "seq"`).map((r) => r.name);
  return { bMs, aBefore: names.indexOf('b'), floodMs };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string' }, flood: { type: 'string' }, 'slow-ms': { type: 'string' } } });
  const [commit] = positionals;
  if (!commit) throw new Error('usage: npx tsx bench/write-turn.ts <commit> [--rounds 10] [--flood 50] [--slow-ms 0]');
  const rounds = Number(values.rounds ?? 10);
  const flood = Number(values.flood ?? 50);
  const slowMs = Number(values['slow-ms'] ?? 0);
  const bin = findPostgresBin();
  if (bin === '') throw new Error(POSTGRES_MISSING);
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-write-turn-'));
  const cluster = await startCluster(bin, { settings: ['max_connections=100', 'shared_buffers=128MB'] });
  const opened: { store: PostgresStore; sql: postgres.Sql }[] = [];
  try {
    await exportServer(commit, join(dir, 'before'));
    const builds: [string, string][] = [[commit, join(dir, 'before')], ['working tree', ROOT]];
    const sides: { label: string; store: PostgresStore; sql: postgres.Sql; rounds: Round[] }[] = [];
    for (const [i, [label, root]] of builds.entries()) {
      const { openPostgresStore } = (await import(pathToFileURL(join(root, 'server/store-postgres/store.ts')).href)) as { openPostgresStore: Open };
      const url = await createDatabase(cluster.info, `turn_${i}`);
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      await sql`CREATE TABLE "turns" ("seq" bigserial PRIMARY KEY, "name" text NOT NULL)`;
      const store = await openPostgresStore({ url, max: 10 });
      opened.push({ store, sql });
      sides.push({ label, store, sql, rounds: [] });
    }
    for (const side of sides) await round(side.store, side.sql, flood, slowMs); // warm-up
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) side.rounds.push(await round(side.store, side.sql, flood, slowMs));
    }
    console.log(`A queues ${flood} writes${slowMs > 0 ? ` of ${slowMs} ms each` : ''}, then B one; ${rounds} rounds each, alternating (median, [min-max])`);
    for (const side of sides) {
      const b = side.rounds.map((x) => x.bMs);
      const before = side.rounds.map((x) => x.aBefore);
      const f = side.rounds.map((x) => x.floodMs);
      console.log(`${side.label}: B's write ${median(b).toFixed(1)} ms [${Math.min(...b).toFixed(1)}-${Math.max(...b).toFixed(1)}], ` +
        `A's writes before it ${median(before)} [${Math.min(...before)}-${Math.max(...before)}], A's flood ${median(f).toFixed(0)} ms [${Math.min(...f).toFixed(0)}-${Math.max(...f).toFixed(0)}]`);
    }
  } finally {
    for (const { store, sql } of opened) {
      await store.close();
      await sql.end();
    }
    cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
