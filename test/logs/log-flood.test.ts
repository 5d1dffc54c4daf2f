// A flood of logs never stalls a request: 500 logs per turn of the event loop for 3 s (far more than
// any disk takes) into a server on a data folder, while /api/health is polled over a socket: health
// answers within 250 ms throughout, the queue never holds more than its capacity, what is dropped is
// counted, and every log counted as written is there. Timed: in vitest.config.ts TIMED (one file at a time).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeLog } from '../../server/logs/index.js';
import { startSdkServer, type SdkServer } from '../support/sdk-server.js';
import { workWatch } from '../fixtures/health-poll.js';

const dirs: string[] = [];
const servers: SdkServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.server.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-logs-'));
  dirs.push(dir);
  return dir;
}

describe('a flood of logs', () => {
  it('never stalls a request: health answers throughout, the queue stays bounded, drops are counted', async () => {
    const sdk = await startSdkServer({ dir: await folder(), logs: { capacity: 2_000 } });
    servers.push(sdk);
    const { server } = sdk;
    const logger = server.logs.logger;
    let flooding = true;
    let calls = 0;
    let highest = 0;
    const flood = (async () => {
      while (flooding) {
        for (let i = 0; i < 500; i++) writeLog(server.logs, 'info', 'flood', { i, payload: 'x'.repeat(200) });
        calls += 500;
        highest = Math.max(highest, logger.pending());
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const waits: number[] = [];
    const until = Date.now() + 3_000;
    while (Date.now() < until) {
      // the server is this process: each wait counted as its work, not what a busy machine adds (workWatch)
      const waited = workWatch(process.pid);
      const res = await fetch(`${server.url}/api/health`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      waits.push(waited().worked);
      await sdk.client().collection('users').getList(1, 1).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    flooding = false;
    await flood;
    await logger.flush();
    const worst = Math.max(...waits);
    console.log(`flood: ${calls} logs offered in 3 s (500 per turn of the loop), ${logger.written} written, ${logger.dropped} dropped; ${waits.length} health requests, worst ${worst.toFixed(1)} ms, median ${waits.sort((a, b) => a - b)[waits.length >> 1].toFixed(1)} ms`);
    expect(highest).toBeLessThanOrEqual(2_000);
    expect(logger.dropped).toBeGreaterThan(0);
    expect(logger.written).toBeGreaterThan(0);
    expect(logger.written + logger.dropped).toBeGreaterThanOrEqual(calls);
    expect(worst).toBeLessThan(250);
    // every log counted as written is there
    const listed = await sdk.admin.logs.getList(1, 1);
    expect(listed.totalItems).toBe(logger.written);
  }, 30_000);
});
