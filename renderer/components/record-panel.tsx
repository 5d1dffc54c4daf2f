// Create or edit one record in a side panel: one input per field type (fields/<type>.tsx), the server's
// per-field errors under each input, delete with confirmation. The working copy and the actions live
// in record-form.ts.
import { createSignal, For, mergeProps, Show, untrack, type JSX } from 'solid-js';
import { Dynamic } from 'solid-js/web';
import type { Collection, Field, RecordModel } from '../api.js';
import { errorAt } from '../api.js';
import { useApp } from '../app-context.js';
import { formatDate } from '../lib/format.js';
import { useSaveShortcut } from '../lib/save-shortcut.js';
import { inputOf, uiOf } from '../fields/registry.js';
import { SidePanel } from './side-panel.js';
import { ConfirmDialog } from './dialog.js';
import { createRecordForm, duplicateValues, type RecordForm } from './record-form.js';
import { RecordSessions } from './record-sessions.js';
import { LeaveGuard } from './leave-guard.js';
import { useToast } from './toasts.js';
import { Icon } from './icon.js';

/** Help for the auth system fields, whose names alone say little. */
const AUTH_HELP: Record<string, string> = {
  emailVisibility: 'Show the email address to other users (superusers always see it).',
  verified: 'The email address is confirmed; rules can require it (verified = true).',
};

/** One field: its label with type glyph and badges, its input, then its error or hint. */
function RecordFieldInput(props: { form: RecordForm; field: Field; collection: Collection; prefix: string }): JSX.Element {
  const f = () => props.field;
  const id = () => `${props.prefix}${props.field.name}`;
  const error = () => props.form.fieldError(props.field);
  const hint = () =>
    f().help || (f().name === 'id' ? 'Leave empty to autogenerate (15 characters a-z0-9).' : props.collection.type === 'auth' && f().system ? AUTH_HELP[f().name] : undefined);
  return (
    <div class="form-field" classList={{ 'has-error': !!error() }} data-field={f().name}>
      <label for={id()}>
        <span class="type-glyph" title={uiOf(f().type).label}>{uiOf(f().type).glyph}</span>
        {f().name}
        <Show when={f().required && !(f().name === 'id' || (f().type === 'password' && !props.form.isNew()))}>
          <span class="req" aria-label="required">*</span>
        </Show>
        <Show when={f().hidden && f().type !== 'password'}><span class="badge badge-muted">hidden</span></Show>
      </label>
      <Dynamic
        component={inputOf(f().type)}
        field={f()}
        id={id()}
        value={props.form.values()[f().name]}
        error={error()}
        ctx={props.form.fieldCtx}
        onChange={(v: unknown) => props.form.change(props.field, v)}
      />
      <Show when={error()} fallback={<Show when={hint()}><small class="hint">{hint()}</small></Show>}>
        <small class="error-text" role="alert">{error()}</small>
      </Show>
    </div>
  );
}

/** The control a field's label points at, or the first one inside it (editors, pickers). */
function controlOf(field: Element | null): HTMLElement | null {
  return field?.querySelector<HTMLElement>('input:not([type=hidden]):not([disabled]):not([readonly]), select:not([disabled]), textarea:not([disabled]), [contenteditable="true"], button:not([disabled])') ?? null;
}

export function RecordPanel(props: {
  collection: Collection;
  record?: RecordModel;
  /** A new record's starting values (Duplicate). */
  initial?: Record<string, unknown>;
  expand: string;
  onClose(): void;
  onSaved(saved?: RecordModel, keepOpen?: boolean): void;
  /** Opens a new record panel with these values (Duplicate); absent where duplicating makes no sense. */
  onDuplicate?(values: Record<string, unknown>): void;
  /** 0 for the records page's panel, 1 for a related record created from it, and so on. */
  depth?: number;
}): JSX.Element {
  const app = useApp();
  const depth = untrack(() => props.depth ?? 0); // a panel stays at the depth it opened at
  // Ids stay unique when a second panel opens above the first.
  const formId = depth === 0 ? 'record-form' : `record-form-${depth + 1}`;
  const prefix = depth === 0 ? 'rf-' : `rf${depth + 1}-`;
  // A relation input may create the related record in place: a second panel above this one.
  const [nested, setNested] = createSignal<{ collection: Collection; done(r: RecordModel | null): void } | null>(null);
  const createRecord = (collectionId: string) =>
    new Promise<RecordModel | null>((resolve) => {
      const target = app.findCollection(collectionId);
      if (!target) return resolve(null);
      setNested({ collection: target, done: (r) => (setNested(null), resolve(r)) });
    });
  const form = createRecordForm(mergeProps(props, { formId, createRecord }), app, useToast());
  // Focus starts on the first field people fill (not `id`, which is best left to the server).
  const initialFocus = (panel: HTMLElement) => controlOf(panel.querySelector(`#${formId} .form-field:not([data-field="id"])`));
  const [confirmDiscard, setConfirmDiscard] = createSignal(false);
  useSaveShortcut(['Enter', 's'], () => void form.save(), () => !confirmDiscard() && !form.confirmDelete() && !nested());
  const autodates = () => props.collection.fields.filter((f) => f.type === 'autodate');
  // Esc, the backdrop, Close and Cancel all come here: unsaved edits are confirmed first, as the
  // collection editor does, never dropped silently.
  const requestClose = () => (form.dirty() ? setConfirmDiscard(true) : props.onClose());

  return (
    <SidePanel
      title={
        <>
          {form.isNew() ? 'New' : 'Edit'} <span class="muted">{props.collection.name}</span> record
        </>
      }
      label={form.isNew() ? `New ${props.collection.name} record` : `Edit ${props.collection.name} record`}
      onClose={requestClose}
      initialFocus={initialFocus}
      footer={
        <>
          <Show when={!form.isNew()}>
            <button type="button" class="btn-icon danger" aria-label="Delete" title="Delete this record" onClick={() => form.setConfirmDelete(true)}>
              <Icon name="trash" />
            </button>
            <Show when={props.onDuplicate}>
              <button
                type="button"
                class="btn-icon"
                aria-label="Duplicate"
                disabled={form.dirty() || form.busy()}
                title={form.dirty() ? 'Duplicate: save or discard your changes first' : 'Duplicate: a new record with these values'}
                onClick={() => props.onDuplicate?.(duplicateValues(form.base()!, props.collection))}
              >
                <Icon name="copy" />
              </button>
            </Show>
          </Show>
          <span class="spacer" />
          <button type="button" class="btn" onClick={requestClose}>Cancel</button>
          <button type="button" class="btn" disabled={form.busy()} title="Save and keep this record open" onClick={() => void form.save(undefined, true)}>
            Save and continue
          </button>
          <button type="submit" form={formId} class="btn btn-primary" disabled={form.busy()} title="Ctrl+Enter">
            {form.busy() ? 'Saving…' : form.isNew() ? 'Create' : 'Save changes'}
          </button>
        </>
      }
    >
      <form id={formId} class="record-form" onSubmit={(e) => form.save(e)} novalidate>
        <Show when={form.message()}>
          <div class="alert alert-error" role="alert">
            {form.message()}
            <For each={form.unknownErrors()}>{(k) => <div><b>{k}</b>: {errorAt(form.errors(), k)}</div>}</For>
          </div>
        </Show>
        <Show when={form.base()}>
          {(r) => (
            <dl class="meta">
              <dt>id</dt>
              <dd><code>{r().id}</code></dd>
              <For each={autodates()}>
                {(f) => (
                  <>
                    <dt>{f.name}</dt>
                    <dd>{formatDate(r()[f.name]) || '—'}</dd>
                  </>
                )}
              </For>
            </dl>
          )}
        </Show>
        <For each={form.editable()}>{(f) => <RecordFieldInput form={form} field={f} collection={props.collection} prefix={prefix} />}</For>
      </form>
      <Show when={props.collection.type === 'auth' && form.base()}>
        {(r) => <RecordSessions collection={props.collection.name} recordId={r().id} />}
      </Show>
      <LeaveGuard when={form.dirty()} title="Leave without saving this record?">
        <p>Your changes to this record are not saved yet. They will be lost.</p>
      </LeaveGuard>
      <Show when={confirmDiscard()}>
        <ConfirmDialog title="Discard your changes?" confirmLabel="Discard changes" danger onConfirm={() => props.onClose()} onCancel={() => setConfirmDiscard(false)}>
          <p>The changes to this record are not saved yet. Closing the panel loses them.</p>
        </ConfirmDialog>
      </Show>
      <Show when={nested()}>
        {(n) => <RecordPanel collection={n().collection} expand="" depth={depth + 1} onClose={() => n().done(null)} onSaved={(saved) => n().done(saved ?? null)} />}
      </Show>
      <Show when={form.confirmDelete()}>
        <ConfirmDialog title="Delete this record?" confirmLabel="Delete record" danger busy={form.busy()} onConfirm={form.remove} onCancel={() => form.setConfirmDelete(false)}>
          <p>
            Record <code>{form.base()?.id}</code> will be deleted. Records that point at it through relations are updated or
            deleted as their fields say. This cannot be undone.
          </p>
        </ConfirmDialog>
      </Show>
    </SidePanel>
  );
}
