// LAN sharing: the same server rebound from 127.0.0.1 to every interface (and back) on the same port,
// with the data kept open. The choice is remembered only once the new binding has succeeded.
import type { RunningServer } from '../server/index.js';
import { ALL_INTERFACES, LOOPBACK } from './desktop-server.js';
import type { LanState } from './preload-api.js';
import { errorText } from './error-text.js';

export interface LanDeps {
  server: Pick<RunningServer, 'host' | 'rebind' | 'lanUrls'> & Partial<Pick<RunningServer, 'tls'>>;
  /** Persists the choice (settings.json). */
  remember(enabled: boolean): Promise<void>;
  /** Text → QR code as a data: URL (qrcode's toDataURL). */
  qr(text: string): Promise<string>;
  /** Told after every change, e.g. to refresh the menu's checkbox. */
  onChange?(state: LanState): void;
}

export interface LanSwitch {
  get(): Promise<LanState>;
  set(enabled: boolean): Promise<LanState>;
}

export function createLanSwitch(deps: LanDeps): LanSwitch {
  // The menu and the UI can both flip the switch: changes run one after the other, never interleaved.
  let queue: Promise<unknown> = Promise.resolve();

  async function get(): Promise<LanState> {
    const enabled = deps.server.host === ALL_INTERFACES;
    const urls = enabled ? await deps.server.lanUrls() : [];
    return { enabled, urls, qr: urls.length > 0 ? await deps.qr(urls[0]) : null, tls: enabled ? (deps.server.tls ?? null) : null };
  }

  async function apply(enabled: boolean): Promise<LanState> {
    const before = deps.server.host;
    const target = enabled ? ALL_INTERFACES : LOOPBACK;
    if (before !== target) {
      try {
        await deps.server.rebind(target);
      } catch (err) {
        // Put the server back where it was so the window keeps working, then tell the caller why.
        await deps.server.rebind(before).catch(() => undefined);
        throw new Error(`Could not ${enabled ? 'share on the LAN' : 'stop LAN sharing'}: ${errorText(err)}`, { cause: err });
      }
    }
    await deps.remember(enabled);
    const state = await get();
    deps.onChange?.(state);
    return state;
  }

  return {
    get,
    set(enabled: boolean) {
      const next = queue.then(() => apply(enabled));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
