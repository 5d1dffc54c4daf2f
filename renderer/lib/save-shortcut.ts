// Ctrl/Cmd+S (and any other keys given) saves a form from anywhere on the page while it is mounted.
import { onCleanup, onMount } from 'solid-js';

export function useSaveShortcut(keys: readonly string[], save: () => void, enabled: () => boolean = () => true): void {
  const onKey = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && keys.includes(e.key) && enabled()) {
      e.preventDefault();
      save();
    }
  };
  onMount(() => document.addEventListener('keydown', onKey));
  onCleanup(() => document.removeEventListener('keydown', onKey));
}
