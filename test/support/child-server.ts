// A Deskbase server in its own process (test/fixtures/hardening-server.ts, 64 MiB checkpoints) with its
// first superuser, for the suites that send hostile requests and watch the event loop from outside:
// `polled` runs a request while `/api/health` is polled every 50 ms, records the longest wait under the
// request's name and asserts it stays under MAX_HEALTH_WAIT_MS (each wait as the server's work made it,
// health-poll.ts workWatch); `stop` logs every wait recorded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { bundle, runChild, type Child } from '../fixtures/hardening-child.js';
import { setupSuperuser } from '../fixtures/hardening-http.js';
import { MAX_HEALTH_WAIT_MS, whilePolled } from '../fixtures/health-poll.js';

export interface ChildServer {
  url: string;
  /** The first superuser's token. */
  su: string;
  child: Child;
  polled<T>(name: string, request: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

/**
 * `label` names the temporary data folder and the line of health waits logged at the end; `nodeArgs`
 * go to the server's `node` (a test measuring RSS may fix V8's heap sizing).
 */
export async function startChildServer(label: string, options: { nodeArgs?: string[] } = {}): Promise<ChildServer> {
  const dir = mkdtempSync(join(tmpdir(), `deskbase-${label}-`));
  const child = runChild(await bundle('test/fixtures/hardening-server.ts'), [dir, String(64 * 1024 * 1024)], { nodeArgs: options.nodeArgs });
  const worst: Record<string, number> = {};
  const stop = async () => {
    await child.kill();
    rmSync(dir, { recursive: true, force: true });
    if (Object.keys(worst).length > 0) console.log(`${label}: longest /api/health wait (ms) during each hostile request: ${JSON.stringify(worst)}`);
  };
  try {
    const url = (await child.line((l) => l.startsWith('url '))).slice(4);
    const su = await setupSuperuser(url, (await child.line((l) => l.startsWith('setup '))).slice(6));
    const polled = async <T>(name: string, request: () => Promise<T>): Promise<T> => {
      const { result, longest } = await whilePolled(url, request, child.proc.pid);
      worst[name] = Math.round(longest);
      expect(longest, `${name}: /api/health waited ${longest.toFixed(0)} ms`).toBeLessThan(MAX_HEALTH_WAIT_MS);
      return result;
    };
    return { url, su, child, polled, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
