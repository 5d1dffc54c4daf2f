// The theme switch: follow the system, or always light or dark (renderer/lib/theme.ts). In the desktop
// window it changes the app's setting, so the window's frame follows too.
import { For, type JSX } from 'solid-js';
import { useTheme, type ThemeSource } from '../lib/theme.js';
import { useToast } from './toasts.js';

const LABELS: Record<ThemeSource, string> = { system: 'System', light: 'Light', dark: 'Dark' };

export function ThemeSwitch(): JSX.Element {
  const theme = useTheme();
  const toast = useToast();
  return (
    <label class="theme-switch">
      <span>Theme</span>
      <select
        aria-label="Theme"
        value={theme?.choice() ?? 'system'}
        onChange={(e) => {
          const select = e.currentTarget;
          const next = select.value as ThemeSource;
          theme?.setChoice(next).catch((err: unknown) => {
            select.value = theme.choice();
            toast(`Could not change the theme: ${err instanceof Error ? err.message : String(err)}`, 'error');
          });
        }}
      >
        <For each={Object.keys(LABELS) as ThemeSource[]}>{(key) => <option value={key}>{LABELS[key]}</option>}</For>
      </select>
    </label>
  );
}
