// LAN sharing (main/lan.ts) on a real server: the binding really changes. Only this machine's own
// addresses are contacted: a non-loopback IPv4 address of one of its interfaces.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiUrl, createHandlers } from '../../main/actions.js';
import { startDesktopServer } from '../../main/desktop-server.js';
import { createLanSwitch, type LanSwitch } from '../../main/lan.js';
import type { LanState } from '../../main/preload-api.js';
import { DEFAULT_SETTINGS, loadSettings, saveSettings } from '../../main/settings.js';
import { startServer, type RunningServer } from '../../server/index.js';
import { closeListener, occupy, osFreePort } from './net-helpers.js';

const ownAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

describe.skipIf(ownAddress === undefined)(`LAN sharing (via ${ownAddress})`, () => {
  const ip = ownAddress ?? '';
  let dir: string;
  let settingsFile: string;
  let server: RunningServer;
  let lan: LanSwitch;
  let changes: LanState[];

  const qrTexts: string[] = [];
  const open = async (enabled: boolean, https = false) => {
    server = await startDesktopServer({
      startServer, dataDir: join(dir, 'data'), uiDir: null, lan: enabled, preferredPort: await osFreePort(), log: () => undefined, https,
    });
    changes = [];
    lan = createLanSwitch({
      server,
      remember: (on) => saveSettings(settingsFile, { ...DEFAULT_SETTINGS, lan: on }),
      qr: (text) => (qrTexts.push(text), QRCode.toDataURL(text)),
      onChange: (state) => changes.push(state),
    });
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'deskbase-lan-'));
    settingsFile = join(dir, 'settings.json');
  });
  afterEach(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is off by default: loopback answers, the LAN address is refused', async () => {
    await open(false);
    expect(await lan.get()).toEqual({ enabled: false, urls: [], qr: null, tls: null });
    expect(await reachable('127.0.0.1', server.port)).toBe(true);
    expect(await reachable(ip, server.port)).toBe(false);
  });

  it('with HTTPS on, the addresses and the QR code carry https, with the CA to trust', async () => {
    await open(false, true);
    const on = await lan.set(true);
    expect(on.urls).toContain(`https://${ip}:${server.port}`);
    expect(qrTexts.at(-1)).toBe(on.urls[0]);
    expect(on.tls).toEqual({ caPath: join(dir, 'data', 'tls', 'ca.pem'), caFingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/) });
    expect(server.url).toMatch(/^https:/);
  });

  it('switches on and off, really rebinding, on the same port, remembering the choice', async () => {
    await open(false);
    const port = server.port;

    const on = await lan.set(true);
    expect(on.enabled).toBe(true);
    expect(on.urls).toContain(`http://${ip}:${port}`);
    expect(on.qr).toMatch(/^data:image\/png;base64,/);
    expect(server.port).toBe(port);
    expect((await fetch(`http://${ip}:${port}/api/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    expect(await loadSettings(settingsFile)).toMatchObject({ lan: true });
    expect(await apiUrl(server)).toBe(`${on.urls[0]}/api/`);

    const off = await lan.set(false);
    expect(off).toEqual({ enabled: false, urls: [], qr: null, tls: null });
    expect(await reachable(ip, port)).toBe(false);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    expect(await loadSettings(settingsFile)).toMatchObject({ lan: false });
    expect(await apiUrl(server)).toBe(`http://127.0.0.1:${port}/api/`);
    expect(changes.map((c) => c.enabled)).toEqual([true, false]);
  });

  it('starts shared when the setting was left on', async () => {
    await open(true);
    expect((await lan.get()).enabled).toBe(true);
    expect(await reachable(ip, server.port)).toBe(true);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  });

  it('applies quick changes in order: the last one wins', async () => {
    await open(false);
    const results = await Promise.all([lan.set(true), lan.set(false), lan.set(true), lan.set(false)]);
    expect(results.map((r) => r.enabled)).toEqual([true, false, true, false]);
    expect(await reachable(ip, server.port)).toBe(false);
    expect(await loadSettings(settingsFile)).toMatchObject({ lan: false });
  });

  it('stays on loopback, working, and says why when the port is taken on the LAN address', async () => {
    await open(false);
    const squatter = await occupy(server.port, ip);
    try {
      await expect(lan.set(true)).rejects.toThrow(/Could not share on the LAN/);
      expect((await lan.get()).enabled).toBe(false);
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
      expect(await loadSettings(settingsFile)).toMatchObject({ lan: false });
      expect(changes).toEqual([]);
    } finally {
      await closeListener(squatter);
    }
  });

  it('copies the API URL through the IPC handler', async () => {
    await open(false);
    const copied: string[] = [];
    const handlers = createHandlers({
      server, lan, dataDir: join(dir, 'data'), logsDir: join(dir, 'logs'), hooksDir: join(dir, 'pb_hooks'), migrationsDir: join(dir, 'pb_migrations'), ensureFolder: async () => false, writeClipboard: (t) => copied.push(t), openPath: async () => '',
      openUi: () => undefined, quit: () => undefined, reportError: () => undefined, onLanUnchanged: () => undefined,
    });
    expect(await handlers.copyApiUrl()).toBe(`http://127.0.0.1:${server.port}/api/`);
    await handlers.lanSet(true);
    expect(await handlers.copyApiUrl()).toBe(`http://${ip}:${server.port}/api/`);
    expect(copied).toEqual([`http://127.0.0.1:${server.port}/api/`, `http://${ip}:${server.port}/api/`]);
    expect((await handlers.lanGet()).enabled).toBe(true);
  });
});
