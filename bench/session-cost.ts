// What the session check costs a request that carries a bearer token (core.sessions.resolve, as
// fast-reads.ts and fast-creates.ts call it): a signed-in user's token resolved again and again, kept
// between requests (the common case), and after a write to the posts table between each (a create's
// own, which must not drop what is kept). In one process, by the process's CPU clock.
//
//   npx tsx bench/session-cost.ts [--n 50000]
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { tearDown } from './children.js';
import { startServer } from '../server/index.js';
import { seed } from './seed.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { n: { type: 'string' } } });
  const n = Number(values.n ?? 50_000);
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-session-cost-'));
  const server = await startServer({ dir: join(dir, 'data'), host: '127.0.0.1', port: 0, uiDir: null, log: () => undefined });
  try {
    const info = await seed(server, 100, 10);
    const { core } = server;
    const token = info.userToken;
    if ((await core.sessions.resolve(token)) === null) throw new Error('the seeded token does not resolve');
    for (let round = 0; round < 3; round++) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) if ((await core.sessions.resolve(token)) === null) throw new Error('lost');
      const c = process.cpuUsage(c0);
      console.log(`${((c.user + c.system) / n).toFixed(2).padStart(7)} µs CPU per session check, kept`);
    }
    const m = Math.min(n, 2_000);
    let resolveUs = 0;
    // the reads the check makes (0 when what is kept is used)
    let reads = 0;
    const get = core.store.get.bind(core.store);
    core.store.get = ((...args: Parameters<typeof get>) => { reads++; return get(...args); }) as typeof get;
    for (let i = 0; i < m; i++) {
      await core.store.write((tx) => tx.run('UPDATE "posts" SET "title" = ? WHERE "id" = ?', [`t${i}`, info.viewIds[0]]));
      const c0 = process.cpuUsage();
      if ((await core.sessions.resolve(token)) === null) throw new Error('lost');
      const c = process.cpuUsage(c0);
      resolveUs += c.user + c.system;
    }
    // one call timed alone after each write: its figure carries what the write left to run (its sync's
    // promise, listeners); the reads count says whether the session was kept
    console.log(`${(resolveUs / m).toFixed(2).padStart(7)} µs CPU per session check, the first after a write to posts (${(reads / m).toFixed(2)} reads each)`);
    // not kept: a write to the user's own table before each first check, which reads its session and record again
    const users = await core.store.all<{ id: string }>('SELECT "id" FROM "users" LIMIT 2');
    let againUs = 0;
    reads = 0;
    for (let i = 0; i < m; i++) {
      await core.store.write((tx) => tx.run('UPDATE "users" SET "name" = ? WHERE "id" = ?', [`n${i}`, users[1].id]));
      for (let k = 0; k < 2; k++) {
        const c0 = process.cpuUsage();
        if ((await core.sessions.resolve(token)) === null) throw new Error('lost');
        const c = process.cpuUsage(c0);
        if (k === 0) againUs += c.user + c.system;
      }
    }
    console.log(`${(againUs / m).toFixed(2).padStart(7)} µs CPU per session check, the first after a write to users (not kept: ${(reads / m).toFixed(2)} reads per write)`);
    // other users' sessions: a sign-in's new row (kept: nothing read), a refresh of another session (the
    // kept session's own row read once: rechecked)
    const usersCollection = core.registry.get('users')!;
    const other = await core.store.write((tx) => core.sessions.start(tx, usersCollection.id, users[1].id, 'bench'));
    for (const [what, write] of [
      ["another user's sign-in", () => core.store.write((tx) => core.sessions.start(tx, usersCollection.id, users[1].id, 'bench'))],
      ["a refresh of another user's session", () => core.store.write((tx) => core.sessions.extend(tx, other.session.id, other.token))],
    ] as const) {
      let us = 0;
      reads = 0;
      for (let i = 0; i < m; i++) {
        await write();
        const c0 = process.cpuUsage();
        if ((await core.sessions.resolve(token)) === null) throw new Error('lost');
        const c = process.cpuUsage(c0);
        us += c.user + c.system;
      }
      console.log(`${(us / m).toFixed(2).padStart(7)} µs CPU per session check, the first after ${what} (${(reads / m).toFixed(2)} reads each)`);
    }
  } finally {
    await tearDown([server], dir);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
