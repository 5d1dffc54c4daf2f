// Create or edit one record in a side panel: one input per field type (fields/<type>.tsx), the server's
// per-field errors under each input, delete with confirmation.
import { createSignal, For, onCleanup, onMount, Show, type JSX } from 'solid-js';
import { Dynamic } from 'solid-js/web';
import type { Collection, ErrorData, Field, RecordModel } from '../api.js';
import { ApiError, errorAt, messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { formatDate, isInternalField } from '../lib/format.js';
import { inputOf, uiOf } from '../fields/registry.js';
import type { FieldCtx } from '../fields/types.js';
import { SidePanel } from './side-panel.js';
import { ConfirmDialog } from './dialog.js';
import { useToast } from './toasts.js';

const AUTH_ORDER = ['id', 'email', 'password', 'emailVisibility', 'verified'];
const authRank = (f: Field) => (AUTH_ORDER.includes(f.name) ? AUTH_ORDER.indexOf(f.name) : AUTH_ORDER.length);
/** Help for the auth system fields, whose names alone say little. */
const AUTH_HELP: Record<string, string> = {
  emailVisibility: 'Show the email address to other users (superusers always see it).',
  verified: 'The email address is confirmed; rules can require it (verified = true).',
};
const omit = (data: ErrorData, keys: string[]): ErrorData => Object.fromEntries(Object.entries(data).filter(([k]) => !keys.includes(k)));
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function RecordPanel(props: { collection: Collection; record?: RecordModel; expand: string; onClose(): void; onSaved(): void }): JSX.Element {
  const app = useApp();
  const toast = useToast();
  const isNew = () => !props.record;
  const [values, setValues] = createSignal<Record<string, unknown>>({ ...(props.record ?? {}) });
  const [extras, setExtras] = createSignal<Record<string, unknown>>({});
  const [invalid, setInvalid] = createSignal<Record<string, string>>({});
  const [errors, setErrors] = createSignal<ErrorData>({});
  const [message, setMessage] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const [confirmDelete, setConfirmDelete] = createSignal(false);

  const editable = () => {
    const list = props.collection.fields.filter((f) => !isInternalField(f, props.collection) && f.type !== 'autodate' && !(f.name === 'id' && !isNew()));
    // Auth records read best as the sign-in card PocketBase shows: email, password, then the flags.
    return props.collection.type === 'auth' ? [...list].sort((a, b) => authRank(a) - authRank(b)) : list;
  };
  const autodates = () => props.collection.fields.filter((f) => f.type === 'autodate');

  const ctx: FieldCtx = {
    api: app.api,
    collections: () => app.collections() ?? [],
    get isNew() {
      return isNew();
    },
    record: props.record,
    setExtra: (key, value) => setExtras({ ...extras(), [key]: value }),
    setInvalid: (name, msg) => {
      const next = { ...invalid() };
      if (msg === null) delete next[name];
      else next[name] = msg;
      setInvalid(next);
    },
  };

  /** New records send what was typed; edits send only what changed (PATCH keeps the rest). */
  const body = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const f of editable()) {
      const v = values()[f.name];
      if (v === undefined) continue;
      if (f.type === 'password') {
        if (v === '' && !isNew()) continue;
        out[f.name] = v;
        out[`${f.name}Confirm`] = extras()[`${f.name}Confirm`] ?? '';
        continue;
      }
      if (f.name === 'id' && v === '') continue;
      if (isNew() || !same(v, props.record?.[f.name])) out[f.name] = v;
    }
    return out;
  };

  const save = async (e?: Event) => {
    e?.preventDefault();
    if (busy()) return;
    const bad = Object.entries(invalid());
    if (bad.length > 0) {
      setMessage(`Fix ${bad.map(([k]) => k).join(', ')} first.`);
      return;
    }
    setBusy(true);
    setErrors({});
    setMessage('');
    try {
      const data = body();
      if (props.record) await app.api.updateRecord(props.collection.name, props.record.id, data, props.expand);
      else await app.api.createRecord(props.collection.name, data, props.expand);
      toast(isNew() ? 'Record created.' : 'Record saved.');
      props.onSaved();
    } catch (err) {
      if (err instanceof ApiError) setErrors(err.data);
      setMessage(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!props.record) return;
    setBusy(true);
    try {
      await app.api.deleteRecord(props.collection.name, props.record.id);
      toast('Record deleted.');
      props.onSaved();
    } catch (err) {
      setConfirmDelete(false);
      setMessage(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const onKey = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && (e.key === 'Enter' || e.key === 's')) {
      e.preventDefault();
      void save();
    }
  };
  onMount(() => document.addEventListener('keydown', onKey));
  onCleanup(() => document.removeEventListener('keydown', onKey));

  const fieldError = (f: Field) => errorAt(errors(), f.name) ?? (f.type === 'password' ? errorAt(errors(), `${f.name}Confirm`) : undefined);
  const hintFor = (f: Field) =>
    f.help || (f.name === 'id' ? 'Leave empty to autogenerate (15 characters a-z0-9).' : props.collection.type === 'auth' && f.system ? AUTH_HELP[f.name] : undefined);
  const unknownErrors = () => Object.keys(errors()).filter((k) => !editable().some((f) => f.name === k || `${f.name}Confirm` === k));

  return (
    <SidePanel
      title={
        <>
          {isNew() ? 'New' : 'Edit'} <span class="muted">{props.collection.name}</span> record
        </>
      }
      onClose={() => props.onClose()}
      footer={
        <>
          <Show when={!isNew()}>
            <button type="button" class="btn btn-danger-ghost" onClick={() => setConfirmDelete(true)}>Delete</button>
          </Show>
          <span class="spacer" />
          <button type="button" class="btn" onClick={() => props.onClose()}>Cancel</button>
          <button type="submit" form="record-form" class="btn btn-primary" disabled={busy()} title="Ctrl+Enter">
            {busy() ? 'Saving…' : isNew() ? 'Create' : 'Save changes'}
          </button>
        </>
      }
    >
      <form id="record-form" class="record-form" onSubmit={save} novalidate>
        <Show when={message()}>
          <div class="alert alert-error" role="alert">
            {message()}
            <For each={unknownErrors()}>{(k) => <div><b>{k}</b>: {errorAt(errors(), k)}</div>}</For>
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
        <For each={editable()}>
          {(f) => {
            const id = `rf-${f.name}`;
            return (
              <div class="form-field" classList={{ 'has-error': !!fieldError(f) }}>
                <label for={id}>
                  <span class="type-glyph" title={uiOf(f.type).label}>{uiOf(f.type).glyph}</span>
                  {f.name}
                  <Show when={f.required && !(f.name === 'id' || (f.type === 'password' && !isNew()))}>
                    <span class="req" aria-label="required">*</span>
                  </Show>
                  <Show when={f.hidden && f.type !== 'password'}><span class="badge badge-muted">hidden</span></Show>
                </label>
                <Dynamic
                  component={inputOf(f.type)}
                  field={f}
                  id={id}
                  value={values()[f.name]}
                  error={fieldError(f)}
                  ctx={ctx}
                  onChange={(v: unknown) => {
                    setValues({ ...values(), [f.name]: v });
                    // The server's complaint is about the old value: drop it once the person edits.
                    if (fieldError(f)) setErrors(omit(errors(), [f.name, `${f.name}Confirm`]));
                  }}
                />
                <Show when={fieldError(f)} fallback={<Show when={hintFor(f)}><small class="hint">{hintFor(f)}</small></Show>}>
                  <small class="error-text" role="alert">{fieldError(f)}</small>
                </Show>
              </div>
            );
          }}
        </For>
      </form>
      <Show when={confirmDelete()}>
        <ConfirmDialog title="Delete this record?" confirmLabel="Delete record" danger busy={busy()} onConfirm={remove} onCancel={() => setConfirmDelete(false)}>
          <p>
            Record <code>{props.record?.id}</code> will be deleted. Records that point at it through relations are updated or
            deleted as their fields say. This cannot be undone.
          </p>
        </ConfirmDialog>
      </Show>
    </SidePanel>
  );
}
