// The main-process side of preload-api.ts. Every handler first checks that the call comes from a page
// of our own server (docs/architecture.md, "The desktop shell"): a frame from anywhere else gets an error, not the call.
import { CHANNELS, type DesktopPreferences, type InvokeChannel, type LanState } from './preload-api.js';

export interface SenderEvent {
  senderFrame: { url: string } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: SenderEvent, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export interface DesktopHandlers {
  lanGet(): Promise<LanState>;
  lanSet(enabled: boolean): Promise<LanState>;
  copyApiUrl(): Promise<string>;
  openDataFolder(): Promise<void>;
  preferencesGet(): Promise<DesktopPreferences>;
  /** The patch is checked by main/preferences.ts (an unknown key or value is refused, naming it). */
  preferencesSet(patch: unknown): Promise<DesktopPreferences>;
  restart(): Promise<void>;
}

/** True when `frameUrl` is a page of the server at `origin` (scheme, host and port all equal). */
export function isTrustedSender(frameUrl: string | null | undefined, origin: string): boolean {
  if (!frameUrl) return false;
  try {
    return new URL(frameUrl).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}

/** Registers the handlers; returns a function that removes them. `origin` is read per call. */
export function registerIpc(ipcMain: IpcMainLike, origin: () => string, handlers: DesktopHandlers): () => void {
  const routes: Record<InvokeChannel, (args: unknown[]) => Promise<unknown>> = {
    [CHANNELS.lanGet]: () => handlers.lanGet(),
    [CHANNELS.lanSet]: (args) => {
      if (typeof args[0] !== 'boolean') return Promise.reject(new Error('lan.set takes true or false.'));
      return handlers.lanSet(args[0]);
    },
    [CHANNELS.copyApiUrl]: () => handlers.copyApiUrl(),
    [CHANNELS.openDataFolder]: () => handlers.openDataFolder(),
    [CHANNELS.preferencesGet]: () => handlers.preferencesGet(),
    [CHANNELS.preferencesSet]: (args) => handlers.preferencesSet(args[0]),
    [CHANNELS.restart]: () => handlers.restart(),
  };
  for (const [channel, route] of Object.entries(routes)) {
    ipcMain.handle(channel, (event, ...args) => {
      if (!isTrustedSender(event.senderFrame?.url, origin())) {
        return Promise.reject(new Error(`${channel} is only available to the Deskbase window.`));
      }
      return route(args);
    });
  }
  return () => {
    for (const channel of Object.keys(routes)) ipcMain.removeHandler(channel);
  };
}
