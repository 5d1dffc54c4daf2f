// Short-lived notices for successful actions (and the odd failure that has no better place).
import { createContext, createSignal, For, useContext, type JSX } from 'solid-js';

export type ToastKind = 'success' | 'error' | 'info';

interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
}

export type ToastFn = (text: string, kind?: ToastKind) => void;

export const ToastContext = createContext<ToastFn>();

export function useToast(): ToastFn {
  return useContext(ToastContext) ?? (() => undefined);
}

export function ToastProvider(props: { children: JSX.Element; timeoutMs?: number }): JSX.Element {
  const [toasts, setToasts] = createSignal<Toast[]>([]);
  let next = 1;
  const dismiss = (id: number) => setToasts((list) => list.filter((t) => t.id !== id));
  const push: ToastFn = (text, kind = 'success') => {
    const id = next++;
    setToasts((list) => [...list.slice(-2), { id, kind, text }]);
    setTimeout(() => dismiss(id), props.timeoutMs ?? (kind === 'error' ? 6000 : 3500));
  };
  return (
    <ToastContext.Provider value={push}>
      {props.children}
      <div class="toasts" role="status" aria-live="polite">
        <For each={toasts()}>
          {(t) => (
            <div class={`toast toast-${t.kind}`}>
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
