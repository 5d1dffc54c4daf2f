// A text input or textarea that offers completions under the caret (lib/filter-complete.ts for filters
// and rules). The list opens while a word is typed (or on Ctrl+Space); Tab takes the highlighted or first
// suggestion, Enter takes one only after the arrows picked it (so Enter still submits a typed filter),
// Escape closes the list without closing the panel around it.
import { createSignal, createUniqueId, For, Show, type JSX } from 'solid-js';
import { Dynamic } from 'solid-js/web';
import type { Completion } from '../lib/filter-complete.js';

export interface AutocompleteFieldProps {
  id?: string;
  multiline?: boolean;
  rows?: number;
  class?: string;
  value: string;
  placeholder?: string;
  ariaLabel?: string;
  ariaInvalid?: boolean;
  disabled?: boolean;
  complete(text: string, caret: number): Completion;
  onInput(value: string): void;
  /** Enter with no suggestion picked (single-line only). */
  onEnter?(): void;
  onEscape?(): void;
  /** Suggestions for an empty control (recent filters), offered on focus and on ArrowDown. */
  whenEmpty?(): Completion['items'];
}

const MAX_ITEMS = 12;

export function AutocompleteField(props: AutocompleteFieldProps): JSX.Element {
  const listId = createUniqueId();
  const [found, setFound] = createSignal<Completion | null>(null);
  const [active, setActive] = createSignal(-1);
  let control: HTMLInputElement | HTMLTextAreaElement | undefined;
  const items = () => found()?.items.slice(0, MAX_ITEMS) ?? [];
  const open = () => items().length > 0;
  const close = () => (setFound(null), setActive(-1));

  const refresh = (force = false) => {
    if (!control) return;
    if (control.value === '' && props.whenEmpty) {
      const items = props.whenEmpty();
      setFound(items.length > 0 ? { from: 0, to: 0, items } : null);
      setActive(-1);
      return;
    }
    const caret = control.selectionStart ?? control.value.length;
    const c = props.complete(control.value, caret);
    const typed = control.value.slice(c.from, caret);
    // Only while a word is being typed, unless asked: a list that pops up after every space gets in the way.
    if (force || typed !== '' || /[.@:]$/.test(control.value.slice(0, caret))) {
      setFound(c.items.length > 0 ? c : null);
      setActive(-1);
    } else close();
  };

  const accept = (i: number) => {
    const c = found();
    const item = c?.items[i];
    if (!c || !item || !control) return;
    if (item.apply) {
      control.value = item.text;
      control.setSelectionRange(item.text.length, item.text.length);
      props.onInput(item.text);
      close();
      props.onEnter?.();
      return;
    }
    const text = control.value;
    // Names and operators get a space after them, so the next part can be typed (or offered) at once.
    const spaced = /[.:]$/.test(item.text) || /^\s/.test(text.slice(c.to)) ? item.text : `${item.text} `;
    const next = text.slice(0, c.from) + spaced + text.slice(c.to);
    const caret = c.from + spaced.length;
    control.value = next;
    control.setSelectionRange(caret, caret);
    props.onInput(next);
    if (/[.:]$/.test(item.text)) refresh();
    else if (/\w$/.test(item.text)) refresh(true);
    else close();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === ' ' && e.ctrlKey) {
      e.preventDefault();
      refresh(true);
      return;
    }
    if (!open() && e.key === 'ArrowDown' && control?.value === '' && props.whenEmpty) {
      e.preventDefault();
      refresh(true);
      return;
    }
    if (open()) {
      const n = items().length;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        if (e.key === 'ArrowDown') setActive(active() + 1 >= n ? 0 : active() + 1);
        else setActive(active() <= 0 ? n - 1 : active() - 1);
        return;
      }
      if (e.key === 'Tab' && !e.shiftKey) {
        e.preventDefault();
        accept(active() >= 0 ? active() : 0);
        return;
      }
      if (e.key === 'Enter' && active() >= 0) {
        e.preventDefault();
        accept(active());
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        close();
        return;
      }
    }
    if (e.key === 'Enter' && !props.multiline && props.onEnter) {
      e.preventDefault();
      close();
      props.onEnter();
    } else if (e.key === 'Escape' && props.onEscape) {
      e.stopPropagation();
      props.onEscape();
    }
  };

  const common = {
    get id() {
      return props.id;
    },
    role: 'combobox' as const,
    autocomplete: 'off',
    spellcheck: false,
    'aria-autocomplete': 'list' as const,
    'aria-controls': listId,
  };
  return (
    <div class="autocomplete">
      {/* One control, an input or a textarea: everything but the tag and its size is shared. */}
      <Dynamic
        component={props.multiline ? 'textarea' : 'input'}
        {...common}
        ref={(el: HTMLInputElement | HTMLTextAreaElement) => (control = el)}
        type={props.multiline ? undefined : 'text'}
        rows={props.multiline ? (props.rows ?? 2) : undefined}
        class={props.class}
        value={props.value}
        placeholder={props.placeholder}
        aria-label={props.ariaLabel}
        aria-invalid={props.ariaInvalid ? 'true' : undefined}
        aria-expanded={open()}
        aria-activedescendant={active() >= 0 ? `${listId}-${active()}` : undefined}
        disabled={props.disabled}
        onInput={(e: InputEvent & { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => (props.onInput(e.currentTarget.value), refresh())}
        // Bound on the element, not delegated: it must run before the panel's document-level Escape.
        on:keydown={onKeyDown}
        onFocus={() => props.whenEmpty && control?.value === '' && refresh(true)}
        onBlur={close}
      />
      <Show when={open()}>
        <ul class="completions" id={listId} role="listbox" aria-label="Suggestions">
          <For each={items()}>
            {(s, i) => (
              <li
                id={`${listId}-${i()}`}
                role="option"
                aria-selected={active() === i()}
                classList={{ active: active() === i() }}
                // mousedown, not click: the control must not lose focus (and close the list) first.
                onMouseDown={(e) => (e.preventDefault(), accept(i()))}
              >
                <span class="mono">{s.text}</span>
                <small class="muted">{s.detail}</small>
              </li>
            )}
          </For>
        </ul>
      </Show>
    </div>
  );
}
