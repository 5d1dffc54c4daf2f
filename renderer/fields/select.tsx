import { For, Show } from 'solid-js';
import type { FieldUi } from './types.js';
import { ListOpt, NumberOpt } from './option-controls.js';

function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' && value !== '' ? [value] : [];
}

export const selectUi: FieldUi<'select'> = {
  label: 'Select',
  glyph: '☰',
  description: 'One or several values from a fixed list.',
  defaults: () => ({ values: [], maxSelect: 1 }),
  Input: (props) => (
    <Show
      when={props.field.maxSelect > 1}
      fallback={
        <select id={props.id} value={typeof props.value === 'string' ? props.value : ''} aria-invalid={props.error ? 'true' : undefined} onChange={(e) => props.onChange(e.currentTarget.value)}>
          <option value="">— none —</option>
          <For each={props.field.values}>{(v) => <option value={v}>{v}</option>}</For>
        </select>
      }
    >
      <div class="chips" id={props.id} role="group" aria-label={props.field.name}>
        <For each={props.field.values}>
          {(v) => {
            const on = () => asList(props.value).includes(v);
            // At the maximum, only chosen values can be clicked (to take them out), as PocketBase's
            // picker does: "4 of at most 3" cannot happen.
            const full = () => !on() && asList(props.value).length >= props.field.maxSelect;
            return (
              <button
                type="button"
                class="chip"
                classList={{ 'chip-on': on() }}
                aria-pressed={on()}
                disabled={full()}
                title={full() ? `At most ${props.field.maxSelect} can be selected` : undefined}
                onClick={() => {
                  const list = asList(props.value);
                  props.onChange(on() ? list.filter((x) => x !== v) : [...list, v]);
                }}
              >
                {v}
              </button>
            );
          }}
        </For>
        <small class="hint">
          {asList(props.value).length} of at most {props.field.maxSelect} selected
        </small>
      </div>
    </Show>
  ),
  Options: (props) => (
    <div class="opt-grid">
      <ListOpt id={`${props.idPrefix}-values`} label="Choices" placeholder="draft, published, archived" hint="Comma separated" value={props.field.values} error={props.error('values')} disabled={props.locked} onChange={(v) => props.update({ values: v })} />
      <NumberOpt id={`${props.idPrefix}-maxSelect`} label="Max selected" hint="1 = single value" step="1" value={props.field.maxSelect} empty={1} error={props.error('maxSelect')} disabled={props.locked} onChange={(v) => props.update({ maxSelect: v ?? 1 })} />
    </div>
  ),
};
