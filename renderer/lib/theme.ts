// The admin UI's light and dark themes: <html data-theme="light|dark"> picks the colours in styles.css.
// The choice is "system" (the OS's appearance, through prefers-color-scheme), "light" or "dark". In a
// browser it is kept in localStorage; in the desktop window it is the app's setting (nativeTheme, which
// also answers prefers-color-scheme there), mirrored in localStorage so the next load starts right.
import { createContext, createSignal, onCleanup, useContext, type Accessor } from 'solid-js';
import type { DeskbaseDesktopApi, ThemeSource } from '../../main/preload-api.js';

export type { ThemeSource };

export const THEME_KEY = 'deskbase.theme';
const DARK_QUERY = '(prefers-color-scheme: dark)';

export function storedTheme(storage: Pick<Storage, 'getItem'> = localStorage): ThemeSource {
  try {
    const value = storage.getItem(THEME_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

export function resolveTheme(choice: ThemeSource, systemDark: boolean): 'light' | 'dark' {
  return choice === 'system' ? (systemDark ? 'dark' : 'light') : choice;
}

function systemDark(win: Window): boolean {
  return typeof win.matchMedia === 'function' && win.matchMedia(DARK_QUERY).matches;
}

/** Sets <html data-theme> for `choice` now. */
export function applyTheme(choice: ThemeSource, win: Window = window): void {
  win.document.documentElement.dataset.theme = resolveTheme(choice, systemDark(win));
}

export interface ThemeControl {
  choice: Accessor<ThemeSource>;
  setChoice(choice: ThemeSource): Promise<void>;
}

/**
 * The theme for this page: applied at once, followed when the OS changes its appearance (for "system"),
 * and in the desktop window kept in step with the app's setting (changed from another place too).
 */
export function createTheme(bridge: DeskbaseDesktopApi | undefined, win: Window = window): ThemeControl {
  const stored = storedTheme(win.localStorage);
  const [choice, setChoiceSignal] = createSignal<ThemeSource>(stored);
  const apply = (next: ThemeSource) => {
    setChoiceSignal(next);
    try {
      win.localStorage.setItem(THEME_KEY, next);
    } catch {
      // private mode: the choice lasts for this page only
    }
    applyTheme(next, win);
  };
  applyTheme(stored, win);
  const media = typeof win.matchMedia === 'function' ? win.matchMedia(DARK_QUERY) : null;
  const onSystemChange = () => applyTheme(choice(), win);
  media?.addEventListener('change', onSystemChange);
  onCleanup(() => media?.removeEventListener('change', onSystemChange));
  if (bridge?.preferences) {
    onCleanup(bridge.preferences.onChange((prefs) => apply(prefs.theme)));
    bridge.preferences.get().then((prefs) => apply(prefs.theme), () => undefined);
  }
  return {
    choice,
    async setChoice(next) {
      // The desktop's setting first: nativeTheme moves prefers-color-scheme, and the window's frame follows.
      if (bridge?.preferences) await bridge.preferences.set({ theme: next });
      apply(next);
    },
  };
}

export const ThemeContext = createContext<ThemeControl>();

/** The page's theme control (provided by app.tsx); undefined outside the app (tests of one component). */
export function useTheme(): ThemeControl | undefined {
  return useContext(ThemeContext);
}
