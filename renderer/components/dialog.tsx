// A modal confirmation: focus lands on the safe choice and stays in the dialog (lib/focus-trap.ts),
// Escape cancels, Enter on a button confirms.
import { Show, type JSX } from 'solid-js';
import { useFocusTrap } from '../lib/focus-trap.js';

export interface ConfirmProps {
  title: string;
  children?: JSX.Element;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog(props: ConfirmProps): JSX.Element {
  let cancelBtn: HTMLButtonElement | undefined;
  let box: HTMLDivElement | undefined;
  useFocusTrap(() => box, { onEscape: () => props.onCancel(), initial: () => cancelBtn });
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && props.onCancel()}>
      <div ref={box} class="dialog" role="alertdialog" aria-modal="true" aria-labelledby="dialog-title">
        <h2 id="dialog-title">{props.title}</h2>
        <div class="dialog-body">{props.children}</div>
        <div class="dialog-actions">
          <button type="button" class="btn" ref={cancelBtn} onClick={() => props.onCancel()}>
            Cancel
          </button>
          <button
            type="button"
            class={props.danger ? 'btn btn-danger' : 'btn btn-primary'}
            disabled={props.busy}
            onClick={() => props.onConfirm()}
          >
            <Show when={props.busy} fallback={props.confirmLabel}>
              Working…
            </Show>
          </button>
        </div>
      </div>
    </div>
  );
}
