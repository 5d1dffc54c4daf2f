// A stand-in for the Electron preload bridge, installed in the page with addInitScript: a browser tab
// then looks like the desktop window to the admin UI. It keeps the LAN state in the page as the main
// process would, and its first attempt to turn sharing on fails the way a taken port does.
import type { LanState } from '../../main/preload-api.js';

export interface StubArgs {
  on: LanState;
  failFirstOn: string;
}

/** Runs in the page (serialized by playwright): no imports, no closures over test code. */
export function installDeskbaseStub(args: StubArgs): void {
  const off: LanState = { enabled: false, urls: [], qr: null };
  let state = off;
  let fail: string | null = args.failFirstOn;
  const listeners = new Set<(s: LanState) => void>();
  let prefs: Record<string, unknown> = {
    port: 8090, portInUse: 8090, keepRunning: true, keepRunningAvailable: true, openAtLogin: false, theme: 'system', updateChannel: 'stable', https: false, httpsInUse: false,
  };
  const prefListeners = new Set<(p: Record<string, unknown>) => void>();
  const w = window as unknown as { deskbase: unknown; openedDataFolder: number };
  w.openedDataFolder = 0;
  w.deskbase = {
    isDesktop: true,
    lan: {
      get: async () => state,
      async set(enabled: boolean) {
        if (enabled && fail !== null) {
          const message = fail;
          fail = null;
          throw new Error(`Error invoking remote method 'deskbase:lan-set': Error: ${message}`);
        }
        state = enabled ? args.on : off;
        listeners.forEach((l) => l(state));
        return state;
      },
      onChange(listener: (s: LanState) => void) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    copyApiUrl: async () => `${state.enabled ? state.urls[0] : location.origin}/api/`,
    async openDataFolder() {
      w.openedDataFolder++;
    },
    restart: async () => undefined,
    // The app's preferences as the main process keeps them (no checks here: main/preferences.ts has its own tests).
    preferences: {
      get: async () => prefs,
      async set(patch: Record<string, unknown>) {
        prefs = { ...prefs, ...patch };
        prefListeners.forEach((l) => l(prefs));
        return prefs;
      },
      onChange(listener: (p: Record<string, unknown>) => void) {
        prefListeners.add(listener);
        return () => prefListeners.delete(listener);
      },
    },
  };
}
