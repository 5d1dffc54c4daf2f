// A test double of the Electron preload bridge (`window.deskbase`): Electron glue, not our code. It keeps
// the LAN state the way the main process does: set() answers the new state and tells every listener,
// a failed bind rejects the way ipcRenderer.invoke does and leaves the state alone.
import type { DeskbaseDesktopApi, DeskbaseWindow, DesktopPreferences, LanState } from '../../main/preload-api.js';
import { parsePreferencesPatch } from '../../main/preferences.js';

export const PREFS: DesktopPreferences = {
  port: 8090, portInUse: 8090, keepRunning: true, keepRunningAvailable: true, openAtLogin: false, theme: 'system', updateChannel: 'stable', https: false, httpsInUse: false,
};

export const LAN_ON: LanState = {
  enabled: true,
  urls: ['http://192.168.1.20:8090', 'http://10.0.0.7:8090'],
  qr: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
};
export const LAN_OFF: LanState = { enabled: false, urls: [], qr: null };

export interface FakeDesktop {
  bridge: DeskbaseDesktopApi;
  /** Every call, in order: 'get', 'set:true', 'copy', 'open'. */
  calls: string[];
  /** The next lan.set() rejects with this message (as the main process would when the port is taken). */
  failNextSet(message: string): void;
  /** The next openDataFolder() rejects with this message. */
  failNextOpen(message: string): void;
  /** A change made from the app menu or the tray. */
  changeFromMenu(state: LanState): void;
  /** Preferences changed from the app menu or the tray. */
  preferencesFromMenu(prefs: DesktopPreferences): void;
  /** The next preferences.set() rejects with this message (as the main process would when the OS refuses). */
  failNextPreferences(message: string): void;
  listeners(): number;
}

export function fakeDesktop(initial: LanState = LAN_OFF, initialPrefs: DesktopPreferences = PREFS): FakeDesktop {
  let state = initial;
  let prefs = initialPrefs;
  let prefsFailure: string | null = null;
  const prefListeners = new Set<(p: DesktopPreferences) => void>();
  let setFailure: string | null = null;
  let openFailure: string | null = null;
  const listeners = new Set<(s: LanState) => void>();
  const calls: string[] = [];
  const announce = () => listeners.forEach((l) => l(state));
  const ipcError = (channel: string, message: string) => new Error(`Error invoking remote method '${channel}': Error: ${message}`);
  const bridge: DeskbaseDesktopApi = {
    isDesktop: true,
    lan: {
      async get() {
        calls.push('get');
        return state;
      },
      async set(enabled) {
        calls.push(`set:${enabled}`);
        if (setFailure !== null) {
          const message = setFailure;
          setFailure = null;
          throw ipcError('deskbase:lan-set', message);
        }
        state = enabled ? LAN_ON : LAN_OFF;
        announce();
        return state;
      },
      onChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    async copyApiUrl() {
      calls.push('copy');
      return state.enabled ? `${state.urls[0]}/api/` : 'http://127.0.0.1:8090/api/';
    },
    async openDataFolder() {
      calls.push('open');
      if (openFailure !== null) {
        const message = openFailure;
        openFailure = null;
        throw ipcError('deskbase:open-data-folder', message);
      }
    },
    async restart() {
      calls.push('restart');
    },
    preferences: {
      async get() {
        return prefs;
      },
      async set(patch) {
        calls.push(`prefs:${JSON.stringify(patch)}`);
        if (prefsFailure !== null) {
          const message = prefsFailure;
          prefsFailure = null;
          throw ipcError('deskbase:preferences-set', message);
        }
        // checked as the main process checks it
        let checked;
        try {
          checked = parsePreferencesPatch(patch);
        } catch (err) {
          throw ipcError('deskbase:preferences-set', (err as Error).message);
        }
        prefs = { ...prefs, ...checked };
        prefListeners.forEach((l) => l(prefs));
        return prefs;
      },
      onChange(listener) {
        prefListeners.add(listener);
        return () => prefListeners.delete(listener);
      },
    },
  };
  return {
    bridge,
    calls,
    failNextSet: (m) => (setFailure = m),
    failNextOpen: (m) => (openFailure = m),
    changeFromMenu(next) {
      state = next;
      announce();
    },
    listeners: () => listeners.size,
    preferencesFromMenu(next) {
      prefs = next;
      prefListeners.forEach((l) => l(prefs));
    },
    failNextPreferences: (m) => (prefsFailure = m),
  };
}

export function installDesktop(fake: FakeDesktop | undefined): void {
  const win = window as DeskbaseWindow;
  if (fake) win.deskbase = fake.bridge;
  else delete win.deskbase;
}
