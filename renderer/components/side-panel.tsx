// A panel sliding in from the right for create/edit forms; Escape closes it, the page stays visible.
import { onCleanup, onMount, type JSX } from 'solid-js';
import { Icon } from './icon.js';

export function SidePanel(props: { title: JSX.Element; onClose: () => void; children: JSX.Element; footer?: JSX.Element; wide?: boolean }): JSX.Element {
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && !document.querySelector('.overlay .dialog')) props.onClose();
  };
  onMount(() => document.addEventListener('keydown', onKey));
  onCleanup(() => document.removeEventListener('keydown', onKey));
  return (
    <div class="panel-backdrop" onClick={(e) => e.target === e.currentTarget && props.onClose()}>
      <aside class={props.wide ? 'panel panel-wide' : 'panel'} role="dialog" aria-modal="true" aria-label="Record editor">
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
