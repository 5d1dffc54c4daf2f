// The IPC handlers behind window.deskbase (main/ipc.ts): every call checks its sender's origin.
import { describe, expect, it } from 'vitest';
import { isTrustedSender, registerIpc, type DesktopHandlers, type IpcMainLike, type SenderEvent } from '../../main/ipc.js';
import { CHANNELS, type DesktopPreferences, type LanState } from '../../main/preload-api.js';

const ORIGIN = 'http://127.0.0.1:8090';

/** A stand-in for Electron's ipcMain: keeps the handlers so the test can invoke them as the renderer would. */
function fakeIpcMain() {
  const handlers = new Map<string, (event: SenderEvent, ...args: unknown[]) => unknown>();
  const ipc: IpcMainLike = {
    handle: (channel, listener) => void handlers.set(channel, listener),
    removeHandler: (channel) => void handlers.delete(channel),
  };
  const invoke = (channel: string, frameUrl: string | null, ...args: unknown[]) =>
    Promise.resolve(handlers.get(channel)!({ senderFrame: frameUrl === null ? null : { url: frameUrl } }, ...args));
  return { ipc, handlers, invoke };
}

const PREFS: DesktopPreferences = {
  port: 8090, portInUse: 8090, keepRunning: true, keepRunningAvailable: true, openAtLogin: false, theme: 'system', updateChannel: 'stable', https: false, httpsInUse: false,
};

function recordingHandlers() {
  const calls: string[] = [];
  const state: LanState = { enabled: false, urls: [], qr: null };
  const handlers: DesktopHandlers = {
    lanGet: async () => (calls.push('lanGet'), state),
    lanSet: async (enabled) => (calls.push(`lanSet:${enabled}`), { ...state, enabled }),
    copyApiUrl: async () => (calls.push('copyApiUrl'), `${ORIGIN}/api/`),
    openDataFolder: async () => void calls.push('openDataFolder'),
    preferencesGet: async () => (calls.push('preferencesGet'), PREFS),
    preferencesSet: async (patch) => (calls.push(`preferencesSet:${JSON.stringify(patch)}`), PREFS),
    restart: async () => void calls.push('restart'),
  };
  return { calls, handlers };
}

describe('isTrustedSender', () => {
  it.each([
    { url: `${ORIGIN}/_/`, trusted: true },
    { url: `${ORIGIN}/_/#/setup?token=abc`, trusted: true },
    { url: `${ORIGIN}/api/health`, trusted: true },
    { url: 'http://127.0.0.1:8091/_/', trusted: false },
    { url: 'http://localhost:8090/_/', trusted: false },
    { url: 'https://127.0.0.1:8090/_/', trusted: false },
    { url: 'http://192.168.1.20:8090/_/', trusted: false },
    { url: 'https://evil.example/_/', trusted: false },
    { url: 'file:///app/dist/renderer/index.html', trusted: false },
    { url: 'about:blank', trusted: false },
    { url: '', trusted: false },
    { url: null, trusted: false },
    { url: undefined, trusted: false },
  ])('$url → $trusted', ({ url, trusted }) => {
    expect(isTrustedSender(url, ORIGIN)).toBe(trusted);
  });
});

describe('registerIpc', () => {
  it('registers one handler per channel the window may invoke, and removes them', () => {
    const { ipc, handlers } = fakeIpcMain();
    const remove = registerIpc(ipc, () => ORIGIN, recordingHandlers().handlers);
    expect([...handlers.keys()].sort()).toEqual(
      [CHANNELS.copyApiUrl, CHANNELS.lanGet, CHANNELS.lanSet, CHANNELS.openDataFolder, CHANNELS.preferencesGet, CHANNELS.preferencesSet, CHANNELS.restart].sort(),
    );
    remove();
    expect(handlers.size).toBe(0);
  });

  it.each([
    { channel: CHANNELS.lanGet, args: [], call: 'lanGet' },
    { channel: CHANNELS.lanSet, args: [true], call: 'lanSet:true' },
    { channel: CHANNELS.lanSet, args: [false], call: 'lanSet:false' },
    { channel: CHANNELS.copyApiUrl, args: [], call: 'copyApiUrl' },
    { channel: CHANNELS.openDataFolder, args: [], call: 'openDataFolder' },
    { channel: CHANNELS.preferencesGet, args: [], call: 'preferencesGet' },
    { channel: CHANNELS.preferencesSet, args: [{ theme: 'dark' }], call: 'preferencesSet:{"theme":"dark"}' },
    { channel: CHANNELS.restart, args: [], call: 'restart' },
  ])('$channel from our own page runs $call', async ({ channel, args, call }) => {
    const { ipc, invoke } = fakeIpcMain();
    const { calls, handlers } = recordingHandlers();
    registerIpc(ipc, () => ORIGIN, handlers);
    await invoke(channel, `${ORIGIN}/_/#/settings`, ...args);
    expect(calls).toEqual([call]);
  });

  it.each([
    { channel: CHANNELS.lanSet, frame: 'https://evil.example/', args: [true] },
    { channel: CHANNELS.lanGet, frame: 'http://127.0.0.1:9999/_/', args: [] },
    { channel: CHANNELS.copyApiUrl, frame: null, args: [] },
    { channel: CHANNELS.openDataFolder, frame: 'file:///tmp/x.html', args: [] },
    { channel: CHANNELS.preferencesSet, frame: 'http://192.168.1.9:8090/_/', args: [{ openAtLogin: true }] },
    { channel: CHANNELS.restart, frame: 'https://evil.example/', args: [] },
  ])('$channel from $frame is refused without running', async ({ channel, frame, args }) => {
    const { ipc, invoke } = fakeIpcMain();
    const { calls, handlers } = recordingHandlers();
    registerIpc(ipc, () => ORIGIN, handlers);
    await expect(invoke(channel, frame, ...args)).rejects.toThrow(/only available to the Deskbase window/);
    expect(calls).toEqual([]);
  });

  it.each([[undefined], ['true'], [1], [null], [{}]])('lan.set(%j) is refused: it takes a boolean', async (arg) => {
    const { ipc, invoke } = fakeIpcMain();
    const { calls, handlers } = recordingHandlers();
    registerIpc(ipc, () => ORIGIN, handlers);
    await expect(invoke(CHANNELS.lanSet, `${ORIGIN}/_/`, arg)).rejects.toThrow(/true or false/);
    expect(calls).toEqual([]);
  });

  it('reads the origin on every call', async () => {
    const { ipc, invoke } = fakeIpcMain();
    const { calls, handlers } = recordingHandlers();
    let origin = ORIGIN;
    registerIpc(ipc, () => origin, handlers);
    origin = 'http://127.0.0.1:8095';
    await expect(invoke(CHANNELS.lanGet, `${ORIGIN}/_/`)).rejects.toThrow();
    await invoke(CHANNELS.lanGet, 'http://127.0.0.1:8095/_/');
    expect(calls).toEqual(['lanGet']);
  });
});
