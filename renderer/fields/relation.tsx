import { createResource, createSignal, For, Show } from 'solid-js';
import type { FieldUi, InputProps } from './types.js';
import type { RecordModel } from '../api.js';
import { messageOf } from '../api.js';
import { recordLabel, searchableFields, searchFilter } from '../lib/format.js';
import { CheckOpt, NumberOpt } from './option-controls.js';

function asIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v !== '');
  return typeof value === 'string' && value !== '' ? [value] : [];
}

function expandedOf(record: RecordModel | undefined, name: string): RecordModel[] {
  const e = record?.expand?.[name];
  if (!e) return [];
  return Array.isArray(e) ? e : [e];
}

/** Picks related records by searching the target collection's text fields. */
function RelationInput(props: InputProps<'relation'>) {
  const target = () => props.ctx.collections().find((c) => c.id === props.field.collectionId || c.name === props.field.collectionId);
  const multiple = () => props.field.maxSelect > 1;
  const [labels, setLabels] = createSignal(new Map<string, string>());
  const remember = (recs: RecordModel[]) => {
    const next = new Map(labels());
    for (const r of recs) next.set(r.id, recordLabel(r, target()));
    setLabels(next);
  };
  remember(expandedOf(props.ctx.record, props.field.name));

  const [open, setOpen] = createSignal(false);
  const [query, setQuery] = createSignal('');
  const [found] = createResource(
    () => (open() ? { q: query() } : false),
    async ({ q }) => {
      const res = await props.ctx.api.listRecords(props.field.collectionId, {
        perPage: 20,
        filter: searchFilter(searchableFields(target()), q),
        skipTotal: true,
      });
      remember(res.items);
      return res.items;
    },
  );

  const ids = () => asIds(props.value);
  const toggle = (id: string) => {
    if (!multiple()) {
      props.onChange(ids()[0] === id ? '' : id);
      setOpen(false);
      return;
    }
    props.onChange(ids().includes(id) ? ids().filter((x) => x !== id) : [...ids(), id]);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;

  return (
    <div class="relation">
      <div class="chips">
        <For each={ids()} fallback={<span class="muted">Nothing selected</span>}>
          {(id) => (
            <span class="chip chip-on">
              {labels().get(id) ?? id}
              <button type="button" class="chip-x" aria-label={`Remove ${labels().get(id) ?? id}`} onClick={() => toggle(id)}>
                ×
              </button>
            </span>
          )}
        </For>
        <button type="button" id={props.id} class="btn btn-small" aria-expanded={open()} onClick={() => setOpen(!open())}>
          {open() ? 'Done' : multiple() ? 'Choose records' : 'Choose a record'}
        </button>
      </div>
      <Show when={open()}>
        <div class="picker">
          <input
            type="search"
            placeholder={`Search ${target()?.name ?? 'records'}…`}
            aria-label="Search related records"
            autofocus
            onInput={(e) => {
              const v = e.currentTarget.value;
              clearTimeout(timer);
              timer = setTimeout(() => setQuery(v), 200);
            }}
          />
          <Show when={!found.error} fallback={<p class="error-text">{messageOf(found.error)}</p>}>
            <ul class="picker-list" role="listbox" aria-multiselectable={multiple()}>
              <For each={found()} fallback={<li class="muted">{found.loading ? 'Loading…' : 'No records found'}</li>}>
                {(r) => (
                  <li role="option" aria-selected={ids().includes(r.id)}>
                    <button type="button" classList={{ selected: ids().includes(r.id) }} onClick={() => toggle(r.id)}>
                      <span>{recordLabel(r, target())}</span>
                      <code>{r.id}</code>
                    </button>
                  </li>
                )}
              </For>
            </ul>
          </Show>
        </div>
      </Show>
    </div>
  );
}

export const relationUi: FieldUi<'relation'> = {
  label: 'Relation',
  glyph: '⇄',
  description: 'Links to records of another collection.',
  defaults: () => ({ collectionId: '', cascadeDelete: false, minSelect: 0, maxSelect: 1 }),
  Input: RelationInput,
  Options: (props) => (
    <div class="opt-grid">
      <div class="opt" classList={{ 'has-error': !!props.error('collectionId') }}>
        <label for={`${props.idPrefix}-collection`}>Related collection</label>
        <select
          id={`${props.idPrefix}-collection`}
          value={props.field.collectionId}
          disabled={props.locked}
          onChange={(e) => props.update({ collectionId: e.currentTarget.value })}
        >
          <option value="">Choose a collection…</option>
          <For each={props.collections}>{(c) => <option value={c.id}>{c.name}</option>}</For>
        </select>
        <Show when={props.error('collectionId')}>
          <small class="error-text">{props.error('collectionId')}</small>
        </Show>
      </div>
      <NumberOpt id={`${props.idPrefix}-minSelect`} label="Min selected" step="1" value={props.field.minSelect} empty={0} error={props.error('minSelect')} disabled={props.locked} onChange={(v) => props.update({ minSelect: v ?? 0 })} />
      <NumberOpt id={`${props.idPrefix}-maxSelect`} label="Max selected" hint="1 = single relation" step="1" value={props.field.maxSelect} empty={1} error={props.error('maxSelect')} disabled={props.locked} onChange={(v) => props.update({ maxSelect: v ?? 1 })} />
      <CheckOpt id={`${props.idPrefix}-cascade`} label="Cascade delete" hint="Delete this record when the related record is deleted" checked={props.field.cascadeDelete} disabled={props.locked} onChange={(v) => props.update({ cascadeDelete: v })} />
    </div>
  ),
};
