// The desktop-only surface the preload script exposes to the Admin UI as `window.deskbase`. Data never
// crosses it (the UI talks HTTP to the server); these are the few things a web page cannot do itself.
// The renderer imports this file for its types only: `import type { DeskbaseDesktopApi } from '../main/preload-api'`.

/** LAN sharing: the server listens on every interface (0.0.0.0) instead of 127.0.0.1 only. */
export interface LanState {
  enabled: boolean;
  /** Base URLs other devices can use, e.g. "http://192.168.1.20:8090" (the API is under /api). Empty when off. */
  urls: string[];
  /** A QR code of urls[0] as a data: URL (image/png) for phones; null when off or no network address. */
  qr: string | null;
  /** Served over HTTPS with Deskbase's own certificate: the CA devices install once, and its fingerprint. */
  tls?: { caPath: string; caFingerprint: string } | null;
}

export type ThemeSource = 'system' | 'light' | 'dark';
export type UpdateChannel = 'stable' | 'beta';

/** The desktop app's own settings, as the admin UI's "Sharing & data" page shows and changes them. */
export interface DesktopPreferences {
  /** The port the server asks for at start (applies at the next start). */
  port: number;
  /** The port it listens on now: differs from `port` when another program held that one. */
  portInUse: number;
  /** Closing the window keeps the server running in the tray. */
  keepRunning: boolean;
  /** False where there is no tray (some Linux desktops): closing the window then quits. */
  keepRunningAvailable: boolean;
  openAtLogin: boolean;
  theme: ThemeSource;
  updateChannel: UpdateChannel;
  /** Serve HTTPS (with Deskbase's own certificate) instead of HTTP, from the next start. */
  https: boolean;
  /** What the server serves now: differs from `https` until Deskbase restarts. */
  httpsInUse: boolean;
}

/** What the page may change; a key or value the app does not know is refused, naming it. */
export type PreferencesPatch = Partial<Pick<DesktopPreferences, 'port' | 'keepRunning' | 'openAtLogin' | 'theme' | 'updateChannel' | 'https'>>;

export interface DeskbaseDesktopApi {
  /** Always true: lets the UI tell the desktop window from a browser tab (where `window.deskbase` is undefined). */
  readonly isDesktop: true;
  readonly lan: {
    get(): Promise<LanState>;
    /** Rebinds the server and remembers the choice; rejects (state unchanged) when the port cannot be bound. */
    set(enabled: boolean): Promise<LanState>;
    /** Called after every change, including ones made from the app menu or the tray; returns an unsubscribe. */
    onChange(listener: (state: LanState) => void): () => void;
  };
  /** Copies the API base URL (the LAN one while sharing, else http://127.0.0.1:PORT/api/) and returns it. */
  copyApiUrl(): Promise<string>;
  /** Opens the data folder in the system file manager. */
  openDataFolder(): Promise<void>;
  readonly preferences: {
    get(): Promise<DesktopPreferences>;
    /** Applies and saves; rejects (nothing changed) on an unknown key or value. */
    set(patch: PreferencesPatch): Promise<DesktopPreferences>;
    /** Called after every change, including ones made from the app menu or the tray; returns an unsubscribe. */
    onChange(listener: (prefs: DesktopPreferences) => void): () => void;
  };
  /** Quits (with the checkpoint) and starts Deskbase again, e.g. to apply the port or HTTPS. */
  restart(): Promise<void>;
}

/** For the renderer: `(window as DeskbaseWindow).deskbase?.lan.get()`. */
export type DeskbaseWindow = Window & { deskbase?: DeskbaseDesktopApi };

/** IPC channel names, shared by the preload and the main process. */
export const CHANNELS = {
  lanGet: 'deskbase:lan-get',
  lanSet: 'deskbase:lan-set',
  copyApiUrl: 'deskbase:copy-api-url',
  openDataFolder: 'deskbase:open-data-folder',
  preferencesGet: 'deskbase:preferences-get',
  preferencesSet: 'deskbase:preferences-set',
  restart: 'deskbase:restart',
  /** main → window only: LAN state after a change. */
  lanChanged: 'deskbase:lan-changed',
  /** main → window only: preferences after a change. */
  preferencesChanged: 'deskbase:preferences-changed',
} as const;

/** Channels the window may invoke (the *Changed ones only flow the other way). */
export type InvokeChannel = Exclude<(typeof CHANNELS)[keyof typeof CHANNELS], typeof CHANNELS.lanChanged | typeof CHANNELS.preferencesChanged>;
