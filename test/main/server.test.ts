// The desktop server: started by main/desktop-server.ts on a data folder, on the preferred port or a
// free one, closed by main/shutdown.ts with the data kept. Real sockets, a real server, real files.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDesktopServer } from '../../main/desktop-server.js';
import { choosePort, isPortFree, NEARBY_PORTS } from '../../main/ports.js';
import { createShutdown } from '../../main/shutdown.js';
import { startServer, type RunningServer } from '../../server/index.js';
import { closeListener as closeNet, occupy, osFreePort } from './net-helpers.js';

describe('choosePort', () => {
  it.each([
    { preferred: 8090, taken: [], chosen: 8090 },
    { preferred: 8090, taken: [8090], chosen: 8091 },
    { preferred: 8090, taken: [8090, 8091, 8092], chosen: 8093 },
    { preferred: 8090, taken: Array.from({ length: NEARBY_PORTS }, (_, i) => 8090 + i), chosen: 0 },
    { preferred: 65535, taken: [65535], chosen: 0 },
    { preferred: 0, taken: [], chosen: 0 },
  ])('preferred $preferred with $taken taken → $chosen', async ({ preferred, taken, chosen }) => {
    const free = async (_host: string, port: number) => !taken.includes(port);
    expect(await choosePort('127.0.0.1', preferred, free)).toBe(chosen);
  });

  it('sees a port held by a real socket as taken', async () => {
    const port = await osFreePort();
    expect(await isPortFree('127.0.0.1', port)).toBe(true);
    const holder = await occupy(port);
    try {
      expect(await isPortFree('127.0.0.1', port)).toBe(false);
    } finally {
      await closeNet(holder);
    }
  });
});

describe('startDesktopServer', () => {
  let dir: string;
  const running: RunningServer[] = [];
  const holders: Server[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'deskbase-desktop-'));
  });
  afterEach(async () => {
    for (const s of running.splice(0)) await s.close();
    for (const h of holders.splice(0)) await closeNet(h);
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (preferredPort: number, onSetupToken?: (token: string, url: string) => void) => {
    const server = await startDesktopServer({
      startServer, dataDir: join(dir, 'data'), uiDir: null, lan: false, preferredPort, log: () => undefined, onSetupToken,
    });
    running.push(server);
    return server;
  };

  it('takes the preferred port when it is free, on 127.0.0.1 only', async () => {
    const port = await osFreePort();
    const server = await start(port);
    expect(server.port).toBe(port);
    expect(server.host).toBe('127.0.0.1');
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });

  it('moves to another free port when the preferred one is taken, leaving its owner alone', async () => {
    const port = await osFreePort();
    const holder = await occupy(port);
    holders.push(holder);
    const server = await start(port);
    expect(server.port).not.toBe(port);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    expect(holder.listening).toBe(true);
    expect((holder.address() as { port: number }).port).toBe(port);
  });

  it('keeps its database in the data folder and hands the setup page URL over', async () => {
    const tokens: Array<{ token: string; url: string }> = [];
    const server = await start(await osFreePort(), (token, url) => tokens.push({ token, url }));
    const setupUrl = (await server.setupUrl());
    expect(setupUrl).toBe(`${server.url}/_/#/setup?token=${(await server.setupToken())}`);
    expect(tokens).toEqual([{ token: (await server.setupToken()), url: setupUrl }]);
    await server.close();
    expect((await readdir(join(dir, 'data'))).length).toBeGreaterThan(0);
  });

  it('closes through the shutdown path with the first superuser kept for the next start', async () => {
    const server = await start(await osFreePort());
    const res = await fetch(`${server.url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: (await server.setupToken()), email: 'ada@example.com', password: 'correct horse battery' }),
    });
    expect(res.status).toBe(200);
    const exits: number[] = [];
    const shutdown = createShutdown({ close: () => server.close(), exit: (code) => exits.push(code), log: () => undefined });
    let prevented = false;
    shutdown.onBeforeQuit();
    shutdown.onWillQuit({ preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    await shutdown.stop();
    expect(exits).toEqual([0]);
    await expect(fetch(`${server.url}/api/health`)).rejects.toThrow();

    const again = await start(await osFreePort());
    expect(await again.setupUrl()).toBeNull();
    expect(await (await fetch(`${again.url}/api/setup`)).json()).toEqual({ required: false });
  });
});
