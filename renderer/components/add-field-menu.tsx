// "New field": a grid of field types with a line on what each is for.
import { createSignal, For, Show, type JSX } from 'solid-js';
import type { FieldType } from '../../server/model/types.js';
import { FIELD_TYPE_ORDER, uiOf } from '../fields/registry.js';
import { Icon } from './icon.js';

export function AddFieldMenu(props: { onAdd(type: FieldType): void }): JSX.Element {
  const [open, setOpen] = createSignal(false);
  return (
    <div class="add-field">
      <button type="button" class="btn btn-outline btn-block" aria-expanded={open()} onClick={() => setOpen(!open())}>
        <Icon name="plus" /> New field
      </button>
      <Show when={open()}>
        <div class="type-grid" role="menu">
          <For each={FIELD_TYPE_ORDER}>
            {(t) => (
              <button
                type="button"
                role="menuitem"
                aria-label={`${uiOf(t).label}: ${uiOf(t).description}`}
                class="type-choice"
                onClick={() => {
                  props.onAdd(t);
                  setOpen(false);
                }}
              >
                <span class="type-glyph">{uiOf(t).glyph}</span>
                <span>
                  <b>{uiOf(t).label}</b>
                  <small>{uiOf(t).description}</small>
                </span>
              </button>
            )}
          </For>
        </div>
      </Show>
    </div>
  );
}
