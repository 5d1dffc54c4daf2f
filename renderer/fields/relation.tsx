import { createResource, createSignal, For, Show, untrack } from 'solid-js';
import type { FieldUi, InputProps } from './types.js';
import type { RecordModel } from '../api.js';
import { messageOf } from '../api.js';
import { formatCount, recordLabel, searchableFields, searchFilter } from '../lib/format.js';
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

/** Records the picker asks for at a time; "More" asks for the next page, up to the API's 1,000. */
const PICKER_PAGE = 20;
const PICKER_MAX = 1000;

/** Picks related records by searching the target collection's text fields, a page at a time. */
function RelationInput(props: InputProps<'relation'>) {
  const target = () => props.ctx.collections().find((c) => c.id === props.field.collectionId || c.name === props.field.collectionId);
  const multiple = () => props.field.maxSelect > 1;
  const [labels, setLabels] = createSignal(new Map<string, string>());
  const remember = (recs: RecordModel[]) => {
    const next = new Map(labels());
    for (const r of recs) next.set(r.id, recordLabel(r, target()));
    setLabels(next);
  };
  // the labels the record came with, once; records picked later bring their own
  untrack(() => remember(expandedOf(props.ctx.record, props.field.name)));

  const [open, setOpen] = createSignal(false);
  const [query, setQuery] = createSignal('');
  const [pages, setPages] = createSignal(1);
  const [found, { refetch }] = createResource(
    () => (open() ? { q: query(), pages: pages() } : false),
    async ({ q, pages: n }) => {
      // Every page up to n: a search (or a record created here) can change what the earlier ones hold.
      const res = await props.ctx.api.listRecords(props.field.collectionId, { page: 1, perPage: PICKER_PAGE * n, filter: searchFilter(searchableFields(target()), q) });
      remember(res.items);
      return res;
    },
  );
  const items = () => (found.error ? [] : (found.latest?.items ?? []));
  const total = () => (found.error ? 0 : (found.latest?.totalItems ?? 0));

  const ids = () => asIds(props.value);
  const toggle = (id: string) => {
    if (!multiple()) {
      props.onChange(ids()[0] === id ? '' : id);
      setOpen(false);
      return;
    }
    props.onChange(ids().includes(id) ? ids().filter((x) => x !== id) : [...ids(), id]);
  };
  const add = (rec: RecordModel) => {
    remember([rec]);
    if (!multiple()) props.onChange(rec.id);
    else if (!ids().includes(rec.id)) props.onChange([...ids(), rec.id]);
  };
  // Reordering a multiple relation: drag a chip onto another, or Alt+Arrow on a focused chip.
  const move = (from: number, to: number) => {
    const list = [...ids()];
    if (from === to || from < 0 || to < 0 || to >= list.length) return;
    const [id] = list.splice(from, 1);
    list.splice(to, 0, id!);
    props.onChange(list);
  };
  const [dragging, setDragging] = createSignal(-1);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let search: HTMLInputElement | undefined;
  const toggleOpen = () => {
    setOpen(!open());
    // The search box takes focus as the picker opens: typing narrows at once.
    if (open()) queueMicrotask(() => search?.focus());
  };
  const createHere = async () => {
    const rec = await props.ctx.createRecord?.(props.field.collectionId);
    if (rec) {
      add(rec);
      void refetch();
    }
    search?.focus();
  };

  return (
    <div class="relation">
      <div class="chips">
        <For each={ids()} fallback={<span class="muted">Nothing selected</span>}>
          {(id, i) => (
            <span
              class="chip chip-on"
              classList={{ dragging: dragging() === i() }}
              draggable={multiple()}
              data-id={id}
              onDragStart={(e) => {
                setDragging(i());
                e.dataTransfer?.setData('text/plain', id);
              }}
              onDragEnd={() => setDragging(-1)}
              onDragOver={(e) => dragging() >= 0 && e.preventDefault()}
              onDrop={(e) => {
                e.preventDefault();
                move(dragging(), i());
                setDragging(-1);
              }}
            >
              <span class="chip-label" title={labels().get(id) ?? id}>{labels().get(id) ?? id}</span>
              <Show when={multiple() && ids().length > 1}>
                <button
                  type="button"
                  class="chip-x chip-move"
                  aria-label={`Move ${labels().get(id) ?? id} (Alt+Left or Alt+Right)`}
                  title="Drag to reorder, or Alt+Left / Alt+Right"
                  onKeyDown={(e) => {
                    if (!e.altKey || (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight')) return;
                    e.preventDefault();
                    const to = i() + (e.key === 'ArrowLeft' ? -1 : 1);
                    move(i(), to);
                    const el = e.currentTarget.closest('.chips');
                    queueMicrotask(() => el?.querySelectorAll<HTMLElement>('.chip-move')[Math.max(0, Math.min(to, ids().length - 1))]?.focus());
                  }}
                >
                  ⋮⋮
                </button>
              </Show>
              <button type="button" class="chip-x" aria-label={`Remove ${labels().get(id) ?? id}`} onClick={() => toggle(id)}>
                ×
              </button>
            </span>
          )}
        </For>
        <button type="button" id={props.id} class="btn btn-small" aria-expanded={open()} onClick={toggleOpen}>
          {open() ? 'Done' : multiple() ? 'Choose records' : 'Choose a record'}
        </button>
      </div>
      <Show when={open()}>
        <div class="picker">
          <div class="picker-search">
            <input
              ref={search}
              type="search"
              placeholder={`Search ${target()?.name ?? 'records'}…`}
              aria-label="Search related records"
              onInput={(e) => {
                const v = e.currentTarget.value;
                clearTimeout(timer);
                timer = setTimeout(() => (setPages(1), setQuery(v)), 200);
              }}
            />
            <Show when={props.ctx.createRecord && target()}>
              <button type="button" class="btn btn-small" onClick={() => void createHere()}>
                + New {target()?.name}
              </button>
            </Show>
          </div>
          <Show when={!found.error} fallback={<p class="error-text">{messageOf(found.error)}</p>}>
            <ul class="picker-list" role="listbox" aria-multiselectable={multiple()} aria-label={`Records of ${target()?.name ?? 'the related collection'}`}>
              <For each={items()} fallback={<li class="muted">{found.loading ? 'Loading…' : 'No records found'}</li>}>
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
            <Show when={total() > 0}>
              <div class="picker-more">
                <span class="muted picker-count">{formatCount(items().length)} of {formatCount(total())}</span>
                <Show when={items().length < total() && items().length < PICKER_MAX} fallback={<Show when={items().length < total()}><span class="muted">Search to narrow the list</span></Show>}>
                  <button type="button" class="btn btn-small btn-ghost" disabled={found.loading} onClick={() => setPages(pages() + 1)}>
                    {found.loading ? 'Loading…' : `Show ${formatCount(Math.min(PICKER_PAGE, total() - items().length))} more`}
                  </button>
                </Show>
              </div>
            </Show>
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
