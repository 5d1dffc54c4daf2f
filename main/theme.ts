// The window follows the OS's light or dark appearance (nativeTheme.themeSource "system"), or the
// choice made in the admin UI or settings.json. The admin UI follows through prefers-color-scheme,
// which Chromium answers from nativeTheme (renderer/lib/theme.ts; its colours in renderer/styles.css).

/** The admin UI's page background (--bg in renderer/styles.css) per theme: painted before the page loads. */
export const THEME_BACKGROUND = { light: '#f6f7f9', dark: '#15181d' } as const;

export function windowBackground(dark: boolean): string {
  return dark ? THEME_BACKGROUND.dark : THEME_BACKGROUND.light;
}
