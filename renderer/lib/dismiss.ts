// The one way a popover or menu closes: a press outside its box, or Escape (which goes no further, so
// the panel or page around it stays open). Used by the Columns list and the Export / import menu.
import { onCleanup, onMount } from 'solid-js';

/** A primitive (hence create*): it takes accessors and registers its listeners for the owner's lifetime. */
export function createDismiss(box: () => HTMLElement | undefined, isOpen: () => boolean, close: () => void): void {
  const onDoc = (e: Event) => {
    if (!isOpen()) return;
    if (e instanceof KeyboardEvent) {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      close();
      // Focus goes back to the button that opened it, when focus was inside.
      const el = box();
      if (el && el.contains(document.activeElement)) el.querySelector<HTMLElement>('[aria-expanded]')?.focus();
    } else if (!(e.target instanceof Node && box()?.contains(e.target))) close();
  };
  onMount(() => {
    document.addEventListener('mousedown', onDoc);
    document.addEventListener('keydown', onDoc, true);
  });
  onCleanup(() => {
    document.removeEventListener('mousedown', onDoc);
    document.removeEventListener('keydown', onDoc, true);
  });
}
