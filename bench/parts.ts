// Where a computed read's CPU goes, part by part, in one process without sockets: a server seeded as
// the bench seeds it, then each part of a view by id and a list of 30 (with totals) run in a loop and
// timed by the process's CPU clock. The parts are the owners fast-reads.ts calls, in its order; what
// node:http itself costs per request is the ceiling's (bench/profile.ts --ceiling).
//
//   npx tsx bench/parts.ts [--posts 10000] [--n 20000]
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { tearDown } from './children.js';
import { startServer } from '../server/index.js';
import { ReadCache } from '../server/http/read-cache.js';
import { RawHeaders } from '../server/http/raw-headers.js';
import { queryFrom } from '../server/http/request.js';
import { logAnswered } from '../server/http/answers.js';
import { createNodeHandler } from '../server/http/app.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { seed } from './seed.js';
import { listPath } from './cases.js';
import { printFunctions } from './cpuprofile.js';
import { WindowProfiler } from './inspector-profile.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { posts: { type: 'string' }, n: { type: 'string' }, only: { type: 'string' }, prof: { type: 'string' } } });
  const only = values.only === undefined ? null : new RegExp(values.only);
  const profiler = values.prof === undefined ? null : new WindowProfiler();
  const n = Number(values.n ?? 20_000);
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-parts-'));
  const server = await startServer({ dir: join(dir, 'data'), host: '127.0.0.1', port: 0, uiDir: null, log: () => undefined });
  try {
    const info = await seed(server, Number(values.posts ?? 10_000), 100);
    const { core, logs } = server;
    const ids = info.viewIds;
    const rows: [string, number][] = [];
    const time = async (name: string, fn: (i: number) => unknown): Promise<void> => {
      if (only !== null && !only.test(name)) return;
      for (let i = 0; i < Math.min(n, 2000); i++) await fn(i);
      await profiler?.start(100);
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) await fn(i);
      const c = process.cpuUsage(c0);
      if (profiler !== null) await profiler.stop(values.prof!);
      rows.push([name, (c.user + c.system) / n]);
    };
    const raw = ['host', '127.0.0.1:8090', 'connection', 'keep-alive', 'x-bench-request', '0'];
    const headersOf = (i: number) => {
      const h = new Headers();
      raw[5] = String(i);
      for (let k = 0; k < raw.length; k += 2) h.append(raw[k], raw[k + 1]);
      return h;
    };
    const viewPath = (i: number) => `/api/collections/posts/records/${ids[i % ids.length]}`;
    const input = (i: number, search = '') => ({ auth: null, method: 'GET', query: search === '' ? {} : queryFrom(new URLSearchParams(search)), headers: headersOf(i), client: '127.0.0.1' });
    const viewIn = (i: number) => input(i);
    const view = (i: number) => core.records.view('posts', ids[i % ids.length], core.context(viewIn(i)));
    const list = listPath({});
    const search = list.slice(list.indexOf('?'));
    const listOf = (i: number) => core.records.list('posts', core.listContext(input(i, search)));

    // the node handler fast-reads serves, on a request and response that record what is written
    const handler = createNodeHandler(core, { uiDir: null, logs, allowHost: () => true });
    const through = (url: string, i: number) => new Promise<void>((resolve) => {
      const rawHeaders = ['Host', '127.0.0.1:8090', 'x-bench-request', String(i)];
      const req = { method: 'GET', url, httpVersionMajor: 1, headers: { host: '127.0.0.1:8090', 'x-bench-request': String(i) }, rawHeaders, socket: { remoteAddress: '127.0.0.1' } };
      const res = { destroyed: false, headersSent: false, statusCode: 200, writeHead() { this.headersSent = true; return this; }, end() { resolve(); }, setHeader() {} };
      (handler as unknown as (q: IncomingMessage, s: ServerResponse) => void)(req as unknown as IncomingMessage, res as unknown as ServerResponse);
    });
    // the bench's `view`: the same few headers each time, so the answers are kept (read-cache.ts)
    const kept = (url: string) => new Promise<void>((resolve) => {
      const rawHeaders = ['Host', '127.0.0.1:8090', 'User-Agent', 'autocannon/7'];
      const req = { method: 'GET', url, httpVersionMajor: 1, headers: { host: '127.0.0.1:8090', 'user-agent': 'autocannon/7' }, rawHeaders, socket: { remoteAddress: '127.0.0.1' } };
      const res = { destroyed: false, headersSent: false, statusCode: 200, writeHead() { this.headersSent = true; return this; }, end() { resolve(); }, setHeader() {} };
      (handler as unknown as (q: IncomingMessage, s: ServerResponse) => void)(req as unknown as IncomingMessage, res as unknown as ServerResponse);
    });
    for (let i = 0; i < 2 * ids.length; i++) await kept(viewPath(i));
    await time('fast-reads handler, view kept (no socket, logs queued)', (i) => kept(viewPath(i)));
    await time('fast-reads handler, view (no socket, logs queued)', (i) => through(viewPath(i), i));
    await time('fast-reads handler, list (no socket, logs queued)', (i) => through(listPath({}), i));
    await time('web Headers from raw headers', headersOf);
    const cache = new ReadCache(core);
    await time('read cache: key, miss, keep a never-asked-again answer', (i) => {
      const v = cache.now()!;
      const key = cache.keyOf(viewPath(i), {}, null, headersOf(i))!;
      if (cache.get(key) === undefined) cache.set(key, v, Buffer.alloc(900));
    });
    await time('  of which web Headers', headersOf);
    // as fast-reads.ts reads them now: from node's raw headers, sorted once for the key (raw-headers.ts)
    const rawOf = (i: number) => {
      raw[5] = String(i);
      return new RawHeaders(raw.slice());
    };
    let fresh = 0;
    await time('read cache as fast-reads.ts asks it, a request never asked again (raw headers, noted)', (i) => {
      const key = cache.asked(viewPath(i), {}, null, rawOf(1e6 + fresh++));
      if (key !== null) cache.get(key);
    });
    await time('request context (view)', (i) => core.context(viewIn(i)));
    await time('store.snapshot of nothing', () => core.store.snapshot(async () => undefined));
    await time('view SQL alone (store.get)', (i) => core.store.get('SELECT r.* FROM "posts" AS r WHERE r."id" = ? AND (1) LIMIT 1', [ids[i % ids.length]]));
    await time('core.records.view (whole)', view);
    const answer = await view(0);
    await time('JSON.stringify + Buffer.from of a view', () => Buffer.from(JSON.stringify(answer)));
    await time('logAnswered', () => logAnswered(logs, { method: 'GET', path: '/api/collections/posts/records/x', search: '', status: 200, t0: performance.now(), auth: null, userAgent: '', referer: '', ip: '127.0.0.1', remoteIp: '127.0.0.1' }, undefined));
    if (only === null || only.test('request logs')) {
      await logs.logger.flush();
      // a few logs per turn of the loop, as requests come (all in one turn overflowed the queue: half
      // were dropped, not written); every one must be written (bench/log-cost.ts measures this alone)
      const m = 20000;
      const written = logs.logger.written;
      await profiler?.start(100);
      const c0 = process.cpuUsage();
      for (let i = 0; i < m; i++) {
        logAnswered(logs, { method: 'GET', path: viewPath(i), search: '', status: 200, t0: performance.now(), auth: null, userAgent: '', referer: '', ip: '127.0.0.1', remoteIp: '127.0.0.1' }, undefined);
        if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
        // logs come faster here than a server answers requests: the queue is kept from overflowing
        if (logs.logger.pending() >= 5_000) await logs.logger.flush();
      }
      await logs.logger.flush();
      const c = process.cpuUsage(c0);
      if (logs.logger.written - written !== m) throw new Error(`request logs: ${logs.logger.written - written} of ${m} written`);
      if (profiler !== null) await profiler.stop(values.prof!);
      rows.push(['request logs queued and written (main thread CPU per log)', (c.user + c.system) / m]);
    }
    await time('list context', (i) => core.listContext(input(i, search)));
    // the first page in the default order with no condition, read directly as listRecords reads it
    // (server/core/records-read.ts: no deferred join when nothing is skipped)
    await time('list page SQL alone', () => core.store.all('SELECT r.* FROM "posts" AS r WHERE 1 ORDER BY r."created" DESC, r._rowid_ DESC LIMIT ? OFFSET ?', [30, 0]));
    await time('count SQL alone', () => core.store.get('SELECT COUNT(*) AS n FROM "posts" AS r'));
    await time('core.records.list (whole)', listOf);
    const page = await listOf(0);
    await time('JSON.stringify + Buffer.from of a list', () => Buffer.from(JSON.stringify(page)));
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
