// One field in the schema editor: name, type, flags, options; system fields are shown but locked;
// a removed field stays visible with a warning until the save, and can be restored.
import { createSignal, Show, untrack, type JSX } from 'solid-js';
import { Dynamic } from 'solid-js/web';
import type { Collection, Field } from '../api.js';
import type { DraftField } from '../lib/collection-draft.js';
import { optionsOf, uiOf } from '../fields/registry.js';
import { CheckOpt, TextOpt } from '../fields/option-controls.js';
import { Icon } from './icon.js';

export interface FieldRowProps {
  item: DraftField;
  index: number;
  count: number;
  collections: Collection[];
  /** The server's error for `prop` of this field. */
  error(prop: string): string | undefined;
  update(patch: Partial<Field>): void;
  move(delta: -1 | 1): void;
  remove(): void;
  restore(): void;
}

export function FieldRow(props: FieldRowProps): JSX.Element {
  const f = () => props.item.field;
  const locked = () => f().system;
  const idPrefix = () => `fld-${props.item.key}`;
  // a new field starts open, once; the user opens and closes it from then on
  const [open, setOpen] = createSignal(untrack(() => !props.item.original && !f().system && f().type !== 'autodate'));
  const hasOptionError = () => ['required', 'hidden', 'presentable', 'help', ...Object.keys(f())].some((k) => k !== 'name' && !!props.error(k));
  const expanded = () => open() || hasOptionError();
  const renamed = () => props.item.original && props.item.original.name !== f().name;

  return (
    <div class="field-row" classList={{ removed: props.item.removed, system: locked(), open: expanded() }} data-field={f().name}>
      <div class="field-row-main">
        <span class="type-glyph" title={uiOf(f().type).label}>{uiOf(f().type).glyph}</span>
        <div class="field-name">
          <input
            id={`${idPrefix()}-name`}
            value={f().name}
            aria-label="Field name"
            placeholder="field_name"
            disabled={locked() || props.item.removed}
            aria-invalid={props.error('name') ? 'true' : undefined}
            onInput={(e) => props.update({ name: e.currentTarget.value })}
          />
          <Show when={props.error('name')}>
            <small class="error-text">{props.error('name')}</small>
          </Show>
          <Show when={renamed() && !props.item.removed}>
            <small class="hint">Renamed from “{props.item.original?.name}”; its data is kept.</small>
          </Show>
        </div>
        <span class="type-label">{uiOf(f().type).label}</span>
        <span class="field-flags">
          <Show when={f().system}><span class="badge badge-muted" title="System field: added by the server, cannot be renamed or removed"><Icon name="lock" size={12} /> system</span></Show>
          <Show when={f().required}><span class="badge">required</span></Show>
          <Show when={f().hidden}><span class="badge badge-muted">hidden</span></Show>
          <Show when={f().presentable}><span class="badge">presentable</span></Show>
        </span>
        <span class="field-actions">
          <Show
            when={!props.item.removed}
            fallback={
              <button type="button" class="btn btn-small" onClick={() => props.restore()}>
                Undo remove
              </button>
            }
          >
            <button type="button" class="btn-icon" aria-label={`Move ${f().name} up`} disabled={props.index === 0} onClick={() => props.move(-1)}>
              <Icon name="up" />
            </button>
            <button type="button" class="btn-icon" aria-label={`Move ${f().name} down`} disabled={props.index === props.count - 1} onClick={() => props.move(1)}>
              <Icon name="down" />
            </button>
            <button type="button" class="btn-icon" classList={{ active: expanded() }} aria-label={`Options of ${f().name}`} aria-expanded={expanded()} onClick={() => setOpen(!open())}>
              <Icon name="settings" />
            </button>
            <button type="button" class="btn-icon danger" aria-label={`Remove ${f().name}`} disabled={locked()} onClick={() => props.remove()}>
              <Icon name="trash" />
            </button>
          </Show>
        </span>
      </div>
      <Show when={props.item.removed}>
        <p class="field-warning" role="alert">
          <Show when={props.item.original} fallback="This new field will not be created.">
            Saving will delete this field <b>and all its data</b> in every record.
          </Show>
        </p>
      </Show>
      <Show when={expanded() && !props.item.removed}>
        <div class="field-options">
          <Show when={optionsOf(f().type)}>
            {(Options) => (
              <Dynamic component={Options()} field={f()} update={props.update} error={props.error} collections={props.collections} locked={locked()} idPrefix={idPrefix()} />
            )}
          </Show>
          <div class="opt-grid common-opts">
            <Show when={f().type !== 'autodate'}>
              <CheckOpt id={`${idPrefix()}-required`} label={f().type === 'bool' ? 'Required (must be true)' : 'Required'} checked={!!f().required} disabled={locked()} onChange={(v) => props.update({ required: v })} />
            </Show>
            <CheckOpt id={`${idPrefix()}-hidden`} label="Hidden from the API" hint="Only superusers see it" checked={f().hidden} disabled={locked()} onChange={(v) => props.update({ hidden: v })} />
            <CheckOpt id={`${idPrefix()}-presentable`} label="Presentable" hint="Used to label this record in relations" checked={f().presentable} disabled={locked()} onChange={(v) => props.update({ presentable: v })} />
            <Show when={f().type !== 'autodate'}>
              <TextOpt id={`${idPrefix()}-help`} label="Help text" placeholder="Shown under the input in forms" value={f().help ?? ''} error={props.error('help')} disabled={locked()} onChange={(v) => props.update({ help: v })} />
            </Show>
          </div>
        </div>
      </Show>
    </div>
  );
}
