// Short-lived notices for successful actions (and the odd failure that has no better place). At most
// three show at once; a repeated notice replaces its twin instead of stacking ("Record created." ×3).
import { createContext, createSignal, For, onCleanup, useContext, type JSX } from 'solid-js';

export type ToastKind = 'success' | 'error' | 'info';

export interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
}

/** Shows a notice; the returned function takes it away early (an error whose cause was fixed). */
export type ToastFn = (text: string, kind?: ToastKind) => () => void;

export const ToastContext = createContext<ToastFn>();

export const MAX_TOASTS = 3;
/** How long a notice stays: errors long enough to read twice, unless dismissed sooner. */
export const TOAST_MS: Record<ToastKind, number> = { success: 4000, info: 4000, error: 8000 };

export function useToast(): ToastFn {
  return useContext(ToastContext) ?? (() => () => undefined);
}

/**
 * The list after `toast` arrives: its twin (same kind and text) goes, and past `max` the oldest
 * non-error goes first, so a burst of successes does not push an unread error away.
 */
export function withToast(list: Toast[], toast: Toast, max = MAX_TOASTS): Toast[] {
  const next = [...list.filter((t) => t.kind !== toast.kind || t.text !== toast.text), toast];
  while (next.length > max) {
    const i = next.findIndex((t) => t.kind !== 'error');
    next.splice(i >= 0 && i < next.length - 1 ? i : 0, 1);
  }
  return next;
}

export function ToastProvider(props: { children: JSX.Element; timeoutMs?: number }): JSX.Element {
  const [toasts, setToasts] = createSignal<Toast[]>([]);
  const timers = new Set<ReturnType<typeof setTimeout>>();
  onCleanup(() => timers.forEach(clearTimeout));
  let next = 1;
  const dismiss = (id: number) => setToasts((list) => list.filter((t) => t.id !== id));
  const push: ToastFn = (text, kind = 'success') => {
    const id = next++;
    setToasts((list) => withToast(list, { id, kind, text }));
    const timer = setTimeout(() => {
      timers.delete(timer);
      dismiss(id);
    }, props.timeoutMs ?? TOAST_MS[kind]);
    timers.add(timer);
    return () => dismiss(id);
  };
  return (
    <ToastContext.Provider value={push}>
      {props.children}
      <div class="toasts" role="status" aria-live="polite">
        <For each={toasts()}>
          {(t) => (
            <div class={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : undefined}>
              <span>{t.text}</span>
              <button type="button" class="toast-close" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
                ×
              </button>
            </div>
          )}
        </For>
      </div>
    </ToastContext.Provider>
  );
}
