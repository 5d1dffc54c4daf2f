// Indexes as the spec models them: { name, fields: [field ids], unique }.
import { For, Show, type JSX } from 'solid-js';
import type { IndexDef } from '../api.js';
import type { DraftField } from '../lib/collection-draft.js';
import { Icon } from './icon.js';

export function IndexesEditor(props: {
  indexes: IndexDef[];
  fields: DraftField[];
  collectionName: string;
  /** What to show under index `i` (the server's words, or an explained failure). */
  error(i: number): string | undefined;
  onChange(indexes: IndexDef[]): void;
}): JSX.Element {
  const set = (i: number, patch: Partial<IndexDef>) => props.onChange(props.indexes.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const add = () => {
    const base = `idx_${props.collectionName || 'collection'}_`;
    let n = props.indexes.length + 1;
    while (props.indexes.some((x) => x.name === `${base}${n}`)) n++;
    props.onChange([...props.indexes, { name: `${base}${n}`, fields: [], unique: false }]);
  };
  const usable = () => props.fields.filter((f) => !f.removed && f.field.type !== 'password');
  return (
    <div class="indexes">
      <For each={props.indexes} fallback={<p class="muted">No indexes. Add one to speed up filters and sorts, or to make values unique.</p>}>
        {(ix, i) => (
          <div class="index-row" classList={{ 'has-error': !!props.error(i()) }}>
            <div class="index-head">
              <input value={ix.name} aria-label="Index name" class="mono" onInput={(e) => set(i(), { name: e.currentTarget.value })} />
              <label class="check">
                <input type="checkbox" checked={!!ix.unique} onChange={(e) => set(i(), { unique: e.currentTarget.checked })} />
                <span>Unique</span>
              </label>
              <button type="button" class="btn-icon danger" aria-label={`Remove index ${ix.name}`} onClick={() => props.onChange(props.indexes.filter((_, j) => j !== i()))}>
                <Icon name="trash" />
              </button>
            </div>
            <div class="chips" role="group" aria-label={`Fields of ${ix.name}`}>
              <For each={usable()}>
                {(f) => {
                  const on = () => ix.fields.includes(f.field.id);
                  return (
                    <button
                      type="button"
                      class="chip chip-sm"
                      classList={{ 'chip-on': on() }}
                      aria-pressed={on()}
                      onClick={() => set(i(), { fields: on() ? ix.fields.filter((x) => x !== f.field.id) : [...ix.fields, f.field.id] })}
                    >
                      {f.field.name}
                    </button>
                  );
                }}
              </For>
            </div>
            <Show when={props.error(i())}>
              <small class="error-text">{props.error(i())}</small>
            </Show>
          </div>
        )}
      </For>
      <button type="button" class="btn btn-small" onClick={add}>
        <Icon name="plus" /> Add index
      </button>
    </div>
  );
}
