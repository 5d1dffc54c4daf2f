// The desktop window's bridge (`window.deskbase`, exposed by the Electron preload) and the LAN sharing
// state built on it. In a browser tab there is no bridge, and nothing desktop-only shows.
import { createContext, createSignal, onCleanup, useContext, type Accessor } from 'solid-js';
import type { DeskbaseDesktopApi, DeskbaseWindow, LanState } from '../main/preload-api.js';

export type { DeskbaseDesktopApi, LanState };

export function desktopBridge(win: Window = window): DeskbaseDesktopApi | undefined {
  const bridge = (win as DeskbaseWindow).deskbase;
  return bridge?.isDesktop === true ? bridge : undefined;
}

/**
 * A rejected ipcRenderer.invoke reads "Error invoking remote method 'deskbase:lan-set': Error: Port 8090
 * is in use"; people need only the part after the channel.
 */
export function bridgeErrorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/^Error invoking remote method '[^']*':\s*/, '').replace(/^[A-Za-z]*Error:\s*/, '');
}

export interface LanSharing {
  state: Accessor<LanState>;
  /** A change is on its way (the server is rebinding). */
  busy: Accessor<boolean>;
  /** Why the last change failed, '' once one succeeds. */
  error: Accessor<string>;
  setEnabled(enabled: boolean): Promise<void>;
}

const OFF: LanState = { enabled: false, urls: [], qr: null };

/** Follows the main process's LAN state (changes from the menu and tray arrive through onChange). */
export function createLanSharing(bridge: DeskbaseDesktopApi): LanSharing {
  const [state, setState] = createSignal<LanState>(OFF);
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal('');
  // A change pushed before the first get() answers is newer than that answer.
  let pushed = false;
  const unsubscribe = bridge.lan.onChange((next) => {
    pushed = true;
    setState(next);
  });
  onCleanup(unsubscribe);
  bridge.lan.get().then(
    (first) => pushed || setState(first),
    (err: unknown) => setError(bridgeErrorText(err)),
  );

  return {
    state,
    busy,
    error,
    async setEnabled(enabled) {
      setBusy(true);
      setError('');
      try {
        setState(await bridge.lan.set(enabled));
      } catch (err) {
        // The main process left the state as it was (the port could not be bound): say why.
        setError(bridgeErrorText(err));
      } finally {
        setBusy(false);
      }
    },
  };
}

export interface DesktopCtx {
  bridge: DeskbaseDesktopApi;
  lan: LanSharing;
}

export const DesktopContext = createContext<DesktopCtx | undefined>();

/** The #/data page's name: a browser tab has only the backup there. */
export const dataPageTitle = (desktop: boolean): string => (desktop ? 'Sharing & data' : 'Data');

/** The desktop bridge and LAN state, or undefined in a browser tab. */
export function useDesktop(): DesktopCtx | undefined {
  return useContext(DesktopContext);
}
