// "Columns": which fields the records table shows, remembered per collection (lib/column-prefs.ts).
import { createSignal, For, Show, type JSX } from 'solid-js';
import { createDismiss } from '../lib/dismiss.js';
import type { Field } from '../api.js';
import { Icon } from './icon.js';

export function ColumnPicker(props: { fields: Field[]; hidden: string[]; onChange(hidden: string[]): void }): JSX.Element {
  const [open, setOpen] = createSignal(false);
  let box: HTMLDivElement | undefined;
  // A click elsewhere or Escape closes the list, as menus do.
  createDismiss(() => box, open, () => setOpen(false));
  const shown = () => props.fields.filter((f) => !props.hidden.includes(f.id)).length;
  const toggle = (f: Field, on: boolean) => props.onChange(on ? props.hidden.filter((id) => id !== f.id) : [...props.hidden, f.id]);
  return (
    <div class="column-picker" ref={box}>
      <button type="button" class="btn" aria-expanded={open()} aria-haspopup="true" title="Choose columns" onClick={() => setOpen(!open())}>
        <Icon name="columns" /> <span class="btn-label">Columns</span>
        <Show when={props.hidden.length > 0}>
          <span class="badge column-count" aria-label={`${shown()} of ${props.fields.length} shown`}>{shown()}/{props.fields.length}</span>
        </Show>
      </button>
      <Show when={open()}>
        <div class="popover column-list" role="group" aria-label="Visible columns">
          <For each={props.fields}>
            {(f) => (
              <label class="check">
                <input
                  type="checkbox"
                  checked={!props.hidden.includes(f.id)}
                  // The last visible column stays: a table of no columns shows nothing to click.
                  disabled={!props.hidden.includes(f.id) && shown() === 1}
                  onChange={(e) => toggle(f, e.currentTarget.checked)}
                />
                <span>{f.name}</span>
              </label>
            )}
          </For>
          <Show when={props.hidden.length > 0}>
            <button type="button" class="btn btn-small btn-ghost" onClick={() => props.onChange([])}>Show all</button>
          </Show>
        </div>
      </Show>
    </div>
  );
}
