// The desktop app's preferences (port, background mode, open at login, theme, update channel): read and
// changed from the admin UI (IPC) and the menus, applied to the OS here, saved in settings.json.
// A change that cannot be applied (the login item refused) is neither saved nor reported as done.
import { keepsRunning } from './background.js';
import type { DesktopPreferences, PreferencesPatch, ThemeSource, UpdateChannel } from './preload-api.js';
import type { DesktopSettings, SettingsStore } from './settings.js';

export interface PreferencesDeps {
  store: SettingsStore;
  platform: NodeJS.Platform;
  hasTray(): boolean;
  /** The port the server listens on now. */
  portInUse(): number;
  /** Whether the server speaks HTTPS now. */
  httpsInUse(): boolean;
  /** nativeTheme.themeSource = theme: the window and, through prefers-color-scheme, the admin UI follow. */
  setTheme(theme: ThemeSource): void;
  /** main/login-item.ts applyOpenAtLogin. */
  setOpenAtLogin(enabled: boolean): Promise<void>;
  /** main/updates.ts: which releases are offered from now on. */
  setUpdateChannel(channel: UpdateChannel): void;
  /** Told after every change (menus, the window). */
  onChange?(prefs: DesktopPreferences): void;
}

export interface Preferences {
  get(): DesktopPreferences;
  set(patch: unknown): Promise<DesktopPreferences>;
  /** Closing the window keeps the app running (the setting, or the platform's default; never without a tray). */
  keepRunning(): boolean;
}

const KEYS = ['port', 'keepRunning', 'openAtLogin', 'theme', 'updateChannel', 'https'] as const;

/** A patch from the page, checked key by key: anything unknown is refused with its name, nothing is ignored. */
export function parsePreferencesPatch(raw: unknown): PreferencesPatch {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('Preferences must be an object.');
  const patch: PreferencesPatch = {};
  for (const [key, value] of Object.entries(raw)) {
    switch (key) {
      case 'port':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 1024 || value > 65535) {
          throw new Error('port must be a whole number from 1024 to 65535.');
        }
        patch.port = value;
        break;
      case 'keepRunning':
      case 'openAtLogin':
      case 'https':
        if (typeof value !== 'boolean') throw new Error(`${key} must be true or false.`);
        patch[key] = value;
        break;
      case 'theme':
        if (value !== 'system' && value !== 'light' && value !== 'dark') throw new Error('theme must be "system", "light" or "dark".');
        patch.theme = value;
        break;
      case 'updateChannel':
        if (value !== 'stable' && value !== 'beta') throw new Error('updateChannel must be "stable" or "beta".');
        patch.updateChannel = value;
        break;
      default:
        throw new Error(`Unknown preference "${key}" (known: ${KEYS.join(', ')}).`);
    }
  }
  return patch;
}

export function createPreferences(deps: PreferencesDeps): Preferences {
  const available = () => deps.platform === 'darwin' || deps.hasTray();
  const keepRunning = () => keepsRunning(deps.store.get().keepRunning, deps.platform, deps.hasTray());
  const get = (): DesktopPreferences => {
    const s = deps.store.get();
    return {
      port: s.port, portInUse: deps.portInUse(), keepRunning: keepRunning(), keepRunningAvailable: available(),
      openAtLogin: s.openAtLogin, theme: s.theme, updateChannel: s.updateChannel, https: s.https, httpsInUse: deps.httpsInUse(),
    };
  };
  let queue: Promise<unknown> = Promise.resolve();

  const apply = async (patch: PreferencesPatch): Promise<DesktopPreferences> => {
    const before = deps.store.get();
    if (patch.keepRunning !== undefined && !available()) {
      throw new Error('This desktop has no tray, so Deskbase cannot keep running with its window closed.');
    }
    // The OS first: if it refuses the login item, nothing is saved.
    if (patch.openAtLogin !== undefined && patch.openAtLogin !== before.openAtLogin) await deps.setOpenAtLogin(patch.openAtLogin);
    if (patch.theme !== undefined) deps.setTheme(patch.theme);
    if (patch.updateChannel !== undefined) deps.setUpdateChannel(patch.updateChannel);
    await deps.store.update(patch satisfies Partial<DesktopSettings>);
    const prefs = get();
    deps.onChange?.(prefs);
    return prefs;
  };

  return {
    get,
    keepRunning,
    set(raw) {
      let patch: PreferencesPatch;
      try {
        patch = parsePreferencesPatch(raw);
      } catch (err) {
        return Promise.reject(err);
      }
      // The menu and the page can both change them: one change after the other.
      const next = queue.then(() => apply(patch));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
