// Where a durable create's CPU goes, in one process without sockets: a server seeded as the bench
// seeds it, then `core.records.create` driven by `--writers` concurrent writers (as the bench's 10
// connections), timed by the process's CPU clock (the journal's thread pool included), with the
// journal's entries per sync; then the same creates through the node handler (fast-creates.ts: the
// bearer, the body read, the request log) on requests and responses made in memory; then parts of
// the create alone, each in a loop. What the sockets and the bench's smaller groups add is the
// difference to `bench/ab.ts create`.
//
//   npx tsx bench/create-parts.ts [--posts 10000] [--n 20000] [--writers 10] [--prof FILE]
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { tearDown } from './children.js';
import { startServer } from '../server/index.js';
import { createNodeHandler } from '../server/http/app.js';
import { seed } from './seed.js';
import { createBody } from './cases.js';
import { printFunctions } from './cpuprofile.js';
import { WindowProfiler } from './inspector-profile.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { posts: { type: 'string' }, n: { type: 'string' }, writers: { type: 'string' }, prof: { type: 'string' } } });
  const profiler = values.prof === undefined ? null : new WindowProfiler();
  const n = Number(values.n ?? 20_000);
  const writers = Number(values.writers ?? 10);
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-create-parts-'));
  const server = await startServer({ dir: join(dir, 'data'), host: '127.0.0.1', port: 0, uiDir: null, log: () => undefined });
  try {
    const info = await seed(server, Number(values.posts ?? 10_000), 100);
    const { core } = server;
    const auth = await core.sessions.resolve(info.userToken);
    const text = createBody(info);
    const headers = new Headers({ host: '127.0.0.1:8090', authorization: `Bearer ${info.userToken}`, 'content-type': 'application/json' });
    const ctx = () => core.context({ auth, method: 'POST', query: {}, headers, client: '127.0.0.1' });
    const createOne = async (): Promise<void> => {
      await core.records.create('posts', JSON.parse(text), ctx());
    };
    const rows: [string, number][] = [];
    // the node handler on a request and response made in memory (as bench/parts.ts does for reads)
    const handler = createNodeHandler(core, { uiDir: null, logs: server.logs, allowHost: () => true }) as unknown as (req: IncomingMessage, res: ServerResponse) => void;
    const raw = ['Host', '127.0.0.1:8090', 'Authorization', `Bearer ${info.userToken}`, 'Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(text)), 'User-Agent', 'bench'];
    const rawObject: Record<string, string> = {};
    for (let i = 0; i < raw.length; i += 2) rawObject[raw[i].toLowerCase()] = raw[i + 1];
    let refused = 0;
    const throughHandler = () => new Promise<void>((resolve) => {
      const req = Object.assign(new Readable({ read() {} }), { method: 'POST', url: '/api/collections/posts/records', httpVersionMajor: 1, headers: rawObject, rawHeaders: raw, socket: { remoteAddress: '127.0.0.1' } });
      req.push(Buffer.from(text));
      req.push(null);
      const res = Object.assign(new EventEmitter(), {
        destroyed: false, closed: false, headersSent: false, statusCode: 200,
        setHeader() {},
        writeHead(status: number) {
          res.statusCode = status;
          res.headersSent = true;
          return res;
        },
        end() {
          if (res.statusCode !== 200) refused++;
          res.closed = true;
          res.emit('close');
          resolve();
        },
      });
      handler(req as unknown as IncomingMessage, res as unknown as ServerResponse);
    });
    const concurrent = async (name: string, count: number, prof: boolean, create = createOne): Promise<void> => {
      const before = core.store.stats();
      if (prof) await profiler?.start(100);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      let left = count;
      await Promise.all(Array.from({ length: writers }, async () => {
        while (left-- > 0) await create();
      }));
      const c = process.cpuUsage(c0);
      const ms = performance.now() - t0;
      if (prof && profiler !== null) await profiler.stop(values.prof!);
      const after = core.store.stats();
      const perSync = ` ${((after.entries - before.entries) / Math.max(1, after.syncs - before.syncs)).toFixed(2)} entries/sync`;
      rows.push([`${name}: ${Math.round((count / ms) * 1000)}/s${perSync}`, (c.user + c.system) / count]);
    };
    await concurrent('warm-up', 2_000, false);
    await concurrent(`core.records.create, ${writers} writers (whole, journal included)`, n, true);
    await concurrent(`the node handler (fast-creates.ts), ${writers} at once`, n, false, throughHandler);
    if (refused > 0) throw new Error(`${refused} creates through the handler were not answered 200`);
    const time = async (name: string, fn: () => unknown): Promise<void> => {
      for (let i = 0; i < 2000; i++) await fn();
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) await fn();
      const c = process.cpuUsage(c0);
      rows.push([name, (c.user + c.system) / n]);
    };
    await time('JSON.parse of the body', () => JSON.parse(text));
    await time('request context', ctx);
    await time('prepareCreate alone (rule, validation)', () => core.records.writes.prepareCreate(core.records.collection('posts'), JSON.parse(text), ctx()));
    const answer = await core.records.create('posts', JSON.parse(text), ctx());
    await time('JSON.stringify of the answer', () => JSON.stringify(answer));
    for (const [name, us] of rows) console.log(`${us.toFixed(1).padStart(9)} µs  ${name}`);
    if (values.prof !== undefined) await printFunctions(values.prof, 40);
  } finally {
    await tearDown([server], dir);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
