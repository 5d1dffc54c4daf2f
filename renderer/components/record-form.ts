// The record panel's working copy and its actions: the values typed so far, the fields' own complaints
// and the server's errors, what a save sends (all of it for a new record, what changed for an edit),
// saving and deleting. record-panel.tsx renders it.
import { createSignal } from 'solid-js';
import type { Collection, ErrorData, Field, RecordModel } from '../api.js';
import { ApiError, errorAt, messageOf } from '../api.js';
import type { AppCtx } from '../app-context.js';
import { isInternalField } from '../lib/format.js';
import type { FieldCtx } from '../fields/types.js';

const AUTH_ORDER = ['id', 'email', 'password', 'emailVisibility', 'verified'];
const authRank = (f: Field) => (AUTH_ORDER.includes(f.name) ? AUTH_ORDER.indexOf(f.name) : AUTH_ORDER.length);
const omit = (data: ErrorData, keys: string[]): ErrorData => Object.fromEntries(Object.entries(data).filter(([k]) => !keys.includes(k)));
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const blank = (v: unknown) => v === undefined || v === null || v === '' || v === false || (Array.isArray(v) && v.length === 0);

export interface RecordFormProps {
  collection: Collection;
  record?: RecordModel;
  /** Values a new record starts with (Duplicate). */
  initial?: Record<string, unknown>;
  expand: string;
  /** The form element's id (a nested panel has its own). */
  formId?: string;
  /** After a save or delete; `keepOpen` when the panel stays on the saved record (Save and continue). */
  onSaved(saved?: RecordModel, keepOpen?: boolean): void;
  /** Creates a related record in place (a relation input's "new"; FieldCtx.createRecord). */
  createRecord?(collectionId: string): Promise<RecordModel | null>;
}

/**
 * What Duplicate copies from a record: its field values, not its id, dates set by the server, files
 * (they belong to the original) or password hashes.
 */
export function duplicateValues(record: RecordModel, collection: Collection): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of collection.fields) {
    if (f.name === 'id' || f.type === 'autodate' || f.type === 'file' || f.type === 'password' || isInternalField(f, collection)) continue;
    if (record[f.name] !== undefined) out[f.name] = structuredClone(record[f.name]);
  }
  return out;
}

export function createRecordForm(props: RecordFormProps, app: AppCtx, toast: (message: string) => void) {
  // The record as last saved: the panel's record, then what "Save and continue" got back.
  const [base, setBase] = createSignal<RecordModel | undefined>(props.record);
  const isNew = () => !base();
  const [values, setValues] = createSignal<Record<string, unknown>>({ ...(props.record ?? props.initial ?? {}) });
  const [extras, setExtras] = createSignal<Record<string, unknown>>({});
  const [invalid, setInvalid] = createSignal<Record<string, string>>({});
  const [errors, setErrors] = createSignal<ErrorData>({});
  const [message, setMessage] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const [attempted, setAttempted] = createSignal(false);
  const [confirmDelete, setConfirmDelete] = createSignal(false);

  const editable = () => {
    const list = props.collection.fields.filter((f) => !isInternalField(f, props.collection) && f.type !== 'autodate' && !(f.name === 'id' && !isNew()));
    // Auth records read best as the sign-in card PocketBase shows: email, password, then the flags.
    return props.collection.type === 'auth' ? [...list].sort((a, b) => authRank(a) - authRank(b)) : list;
  };

  /** What the field inputs may ask of the form (fields/types.ts). */
  const fieldCtx: FieldCtx = {
    api: app.api,
    collections: () => app.collections() ?? [],
    get isNew() {
      return isNew();
    },
    record: props.record,
    createRecord: props.createRecord,
    // Functional updates: inputs may call these from their own effects, which must not subscribe to
    // (and rerun on) the form's whole state.
    setExtra: (key, value) => setExtras((cur) => ({ ...cur, [key]: value })),
    attempted,
    serverError: (key) => errorAt(errors(), key),
    setInvalid: (name, msg) =>
      setInvalid((cur) => {
        if ((cur[name] ?? null) === msg) return cur;
        const next = { ...cur };
        if (msg === null) delete next[name];
        else next[name] = msg;
        return next;
      }),
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
      if (isNew() || !same(v, base()?.[f.name])) out[f.name] = v;
    }
    return out;
  };

  // A password's confirmation has its own input, which shows its own error (fields/password.tsx).
  const fieldError = (f: Field) => errorAt(errors(), f.name);

  /**
   * Unsaved: an edit that would send something, or a new record with anything typed. Closing the panel
   * then asks first, as the collection editor does.
   */
  const dirty = () =>
    isNew() ? Object.values(values()).some((v) => !blank(v)) || Object.values(extras()).some((v) => !blank(v)) : Object.keys(body()).length > 0;

  /** A new value for `f`; the server's complaint was about the old one, so it goes. */
  const change = (f: Field, v: unknown) => {
    setValues({ ...values(), [f.name]: v });
    if (fieldError(f)) setErrors(omit(errors(), [f.name, `${f.name}Confirm`]));
  };

  /** Focus on the first field that has a complaint (after a failed save), once the DOM shows it. */
  const focusFirstInvalid = () =>
    requestAnimationFrame(() => {
      const form = `#${props.formId ?? 'record-form'}`;
      const field = document.querySelector<HTMLElement>(`${form} .form-field.has-error, ${form} [aria-invalid="true"], ${form} .code-invalid`);
      const control = field?.matches('input, select, textarea, [contenteditable="true"]') ? field : field?.querySelector<HTMLElement>('input:not([type=hidden]):not([disabled]), select, textarea, [contenteditable="true"], button');
      control?.focus();
      field?.scrollIntoView({ block: 'nearest' });
    });

  const save = async (e?: Event, keepOpen = false) => {
    e?.preventDefault();
    if (busy()) return;
    setAttempted(true);
    // Inputs that know their value cannot be sent (invalid JSON, passwords that differ) say why next to
    // themselves, once; nothing is sent, and focus goes to the first of them.
    if (Object.keys(invalid()).length > 0) {
      setMessage('');
      focusFirstInvalid();
      return;
    }
    setBusy(true);
    setErrors({});
    setMessage('');
    try {
      const data = body();
      const was = base();
      const saved = was
        ? await app.api.updateRecord(props.collection.name, was.id, data, props.expand)
        : await app.api.createRecord(props.collection.name, data, props.expand);
      toast(was ? 'Record saved.' : 'Record created.');
      if (keepOpen) {
        // The form now edits the saved record: its values are the baseline, nothing is unsaved.
        setBase(saved);
        setValues({ ...saved });
        setExtras({});
        setAttempted(false);
      }
      props.onSaved(saved, keepOpen);
    } catch (err) {
      if (err instanceof ApiError) setErrors(err.data);
      setMessage(messageOf(err));
      focusFirstInvalid();
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    const rec = base();
    if (!rec) return;
    setBusy(true);
    try {
      await app.api.deleteRecord(props.collection.name, rec.id);
      toast('Record deleted.');
      props.onSaved();
    } catch (err) {
      setConfirmDelete(false);
      setMessage(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  /** Errors about keys no input shows (the alert lists them). */
  const unknownErrors = () => Object.keys(errors()).filter((k) => !editable().some((f) => f.name === k || `${f.name}Confirm` === k));

  return { isNew, base, values, errors, message, busy, dirty, confirmDelete, setConfirmDelete, editable, fieldCtx, fieldError, change, save, remove, unknownErrors };
}

export type RecordForm = ReturnType<typeof createRecordForm>;
