// Create or edit one record in a side panel: one input per field type (fields/<type>.tsx), the server's
// per-field errors under each input, delete with confirmation. The working copy and the actions live
// in record-form.ts.
import { createSignal, For, Show, type JSX } from 'solid-js';
import { Dynamic } from 'solid-js/web';
import type { Collection, Field, RecordModel } from '../api.js';
import { errorAt } from '../api.js';
import { useApp } from '../app-context.js';
import { formatDate } from '../lib/format.js';
import { useSaveShortcut } from '../lib/save-shortcut.js';
import { inputOf, uiOf } from '../fields/registry.js';
import { SidePanel } from './side-panel.js';
import { ConfirmDialog } from './dialog.js';
import { createRecordForm, type RecordForm } from './record-form.js';
import { RecordSessions } from './record-sessions.js';
import { LeaveGuard } from './leave-guard.js';
import { useToast } from './toasts.js';

/** Help for the auth system fields, whose names alone say little. */
const AUTH_HELP: Record<string, string> = {
  emailVisibility: 'Show the email address to other users (superusers always see it).',
  verified: 'The email address is confirmed; rules can require it (verified = true).',
};

/** One field: its label with type glyph and badges, its input, then its error or hint. */
function RecordFieldInput(props: { form: RecordForm; field: Field; collection: Collection }): JSX.Element {
  const f = () => props.field;
  const id = () => `rf-${props.field.name}`;
  const error = () => props.form.fieldError(props.field);
  const hint = () =>
    f().help || (f().name === 'id' ? 'Leave empty to autogenerate (15 characters a-z0-9).' : props.collection.type === 'auth' && f().system ? AUTH_HELP[f().name] : undefined);
  return (
    <div class="form-field" classList={{ 'has-error': !!error() }}>
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

export function RecordPanel(props: { collection: Collection; record?: RecordModel; expand: string; onClose(): void; onSaved(): void }): JSX.Element {
  const form = createRecordForm(props, useApp(), useToast());
  const [confirmDiscard, setConfirmDiscard] = createSignal(false);
  useSaveShortcut(['Enter', 's'], () => void form.save(), () => !confirmDiscard() && !form.confirmDelete());
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
      footer={
        <>
          <Show when={!form.isNew()}>
            <button type="button" class="btn btn-danger-ghost" onClick={() => form.setConfirmDelete(true)}>Delete</button>
          </Show>
          <span class="spacer" />
          <button type="button" class="btn" onClick={requestClose}>Cancel</button>
          <button type="submit" form="record-form" class="btn btn-primary" disabled={form.busy()} title="Ctrl+Enter">
            {form.busy() ? 'Saving…' : form.isNew() ? 'Create' : 'Save changes'}
          </button>
        </>
      }
    >
      <form id="record-form" class="record-form" onSubmit={form.save} novalidate>
        <Show when={form.message()}>
          <div class="alert alert-error" role="alert">
            {form.message()}
            <For each={form.unknownErrors()}>{(k) => <div><b>{k}</b>: {errorAt(form.errors(), k)}</div>}</For>
          </div>
        </Show>
        <Show when={props.record}>
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
        <For each={form.editable()}>{(f) => <RecordFieldInput form={form} field={f} collection={props.collection} />}</For>
      </form>
      <Show when={props.collection.type === 'auth' && props.record}>
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
      <Show when={form.confirmDelete()}>
        <ConfirmDialog title="Delete this record?" confirmLabel="Delete record" danger busy={form.busy()} onConfirm={form.remove} onCancel={() => form.setConfirmDelete(false)}>
          <p>
            Record <code>{props.record?.id}</code> will be deleted. Records that point at it through relations are updated or
            deleted as their fields say. This cannot be undone.
          </p>
        </ConfirmDialog>
      </Show>
    </SidePanel>
  );
}
