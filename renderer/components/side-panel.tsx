// A panel sliding in from the right for create/edit forms. It is modal: focus moves in and stays
// (lib/focus-trap.ts), and Escape, the backdrop and the close button all ask `onClose`, which may say
// no (unsaved edits are confirmed first by the caller).
import { type JSX } from 'solid-js';
import { useFocusTrap } from '../lib/focus-trap.js';
import { Icon } from './icon.js';

export function SidePanel(props: {
  title: JSX.Element;
  label?: string;
  onClose: () => void;
  children: JSX.Element;
  footer?: JSX.Element;
  wide?: boolean;
  /** Where focus starts (default: the first field). */
  initialFocus?: (panel: HTMLElement) => HTMLElement | null;
}): JSX.Element {
  let panel: HTMLElement | undefined;
  useFocusTrap(() => panel, { onEscape: () => props.onClose(), initial: (el) => props.initialFocus?.(el) ?? null });
  return (
    <div class="panel-backdrop" onClick={(e) => e.target === e.currentTarget && props.onClose()}>
      <aside ref={panel} class={props.wide ? 'panel panel-wide' : 'panel'} role="dialog" aria-modal="true" aria-label={props.label ?? 'Record editor'}>
        <header class="panel-header">
          <h2>{props.title}</h2>
          <button type="button" class="btn-icon" aria-label="Close" onClick={() => props.onClose()}>
            <Icon name="x" />
          </button>
        </header>
        <div class="panel-body">{props.children}</div>
        {props.footer ? <footer class="panel-footer">{props.footer}</footer> : null}
      </aside>
    </div>
  );
}
