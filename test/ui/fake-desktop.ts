// A test double of the Electron preload bridge (`window.deskbase`): Electron glue, not our code. It keeps
// the LAN state the way the main process does: set() answers the new state and tells every listener,
// a failed bind rejects the way ipcRenderer.invoke does and leaves the state alone.
import type { DeskbaseDesktopApi, DeskbaseWindow, LanState } from '../../main/preload-api.js';

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
  listeners(): number;
}

export function fakeDesktop(initial: LanState = LAN_OFF): FakeDesktop {
  let state = initial;
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
  };
}

export function installDesktop(fake: FakeDesktop | undefined): void {
  const win = window as DeskbaseWindow;
  if (fake) win.deskbase = fake.bridge;
  else delete win.deskbase;
}
