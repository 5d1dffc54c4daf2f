// One focus trap for every modal surface (side panels, dialogs): focus moves in when it opens, Tab and
// Shift+Tab cycle inside it, Escape asks it to close, and focus returns to where it was when it closes.
// Traps stack: a dialog opened over a panel owns the keyboard until it closes, then the panel has it back.
import { onCleanup, onMount } from 'solid-js';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

interface Trap {
  el: HTMLElement;
  onEscape?: () => void;
}

const stack: Trap[] = [];

function focusables(el: HTMLElement): HTMLElement[] {
  return [...el.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((x) => x.offsetParent !== null || x === document.activeElement);
}

function onKeyDown(e: KeyboardEvent): void {
  const top = stack[stack.length - 1];
  if (!top) return;
  if (e.key === 'Escape' && top.onEscape) {
    // Autocomplete lists and other popups inside the trap close first (they stop the event).
    e.preventDefault();
    top.onEscape();
    return;
  }
  if (e.key !== 'Tab') return;
  const items = focusables(top.el);
  if (items.length === 0) {
    e.preventDefault();
    top.el.focus();
    return;
  }
  const first = items[0];
  const last = items[items.length - 1];
  const active = document.activeElement;
  const inside = active instanceof Node && top.el.contains(active);
  if (e.shiftKey && (active === first || !inside)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (active === last || !inside)) {
    e.preventDefault();
    first.focus();
  }
}

// Focus that lands outside the top trap (a click on the page under a backdrop) is pulled back in.
function onFocusIn(e: FocusEvent): void {
  const top = stack[stack.length - 1];
  if (top && e.target instanceof Node && !top.el.contains(e.target)) (focusables(top.el)[0] ?? top.el).focus();
}

/**
 * Traps focus in the element `ref()` returns while the calling component is mounted. `initial` picks
 * the element to focus first (default: the first field, else the first focusable).
 */
export function useFocusTrap(ref: () => HTMLElement | undefined, opts: { onEscape?: () => void; initial?: (el: HTMLElement) => HTMLElement | null | undefined } = {}): void {
  let previous: Element | null = null;
  let trap: Trap | undefined;
  onMount(() => {
    const el = ref();
    if (!el) return;
    previous = document.activeElement;
    trap = { el, onEscape: opts.onEscape };
    if (stack.length === 0) {
      document.addEventListener('keydown', onKeyDown);
      document.addEventListener('focusin', onFocusIn);
    }
    stack.push(trap);
    if (!el.hasAttribute('tabindex')) el.tabIndex = -1;
    const first = opts.initial?.(el) ?? el.querySelector<HTMLElement>('input:not([disabled]):not([readonly]), select:not([disabled]), textarea:not([disabled])') ?? focusables(el)[0] ?? el;
    first.focus();
  });
  onCleanup(() => {
    if (!trap) return;
    const i = stack.indexOf(trap);
    if (i >= 0) stack.splice(i, 1);
    if (stack.length === 0) {
      document.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('focusin', onFocusIn);
    }
    // Back where the user was (the row that opened the panel), if it is still on the page.
    if (previous instanceof HTMLElement && previous.isConnected) previous.focus();
    else stack[stack.length - 1]?.el.focus();
  });
}
