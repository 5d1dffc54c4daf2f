// The collection editor's working copy and its actions: the draft, the server's errors, adding and
// moving fields, saving (asking first when fields are dropped) and deleting. The page renders it.
import { createEffect, createMemo, createSignal, on } from 'solid-js';
import { createStore, produce } from 'solid-js/store';
import type { Collection, ErrorData } from '../api.js';
import { ApiError, errorAt, errorUnder, messageOf } from '../api.js';
import type { FieldType } from '../../server/model/types.js';
import type { AppCtx } from '../app-context.js';
import { href, type Router } from '../router.js';
import { draftFromCollection, emptyDraft, newField, submittedFields, summarize, toBody } from '../lib/collection-draft.js';
import { explainSaveError, type SaveProblem } from '../lib/save-errors.js';
import type { ToastFn } from '../components/toasts.js';

export function createCollectionForm(props: { collection?: Collection }, app: AppCtx, router: Router, toast: ToastFn) {
  const isNew = () => !props.collection;
  const [draft, setDraft] = createStore(props.collection ? draftFromCollection(props.collection) : emptyDraft());
  const [errors, setErrors] = createSignal<ErrorData>({});
  const [message, setMessage] = createSignal('');
  const [problem, setProblem] = createSignal<SaveProblem | null>(null);
  const [busy, setBusy] = createSignal(false);
  const [confirmSave, setConfirmSave] = createSignal(false);
  const [confirmDelete, setConfirmDelete] = createSignal(false);
  // Unsaved when the working copy differs from what was loaded or last saved (the store is read deeply).
  const [savedAs, setSavedAs] = createSignal(JSON.stringify(draft));
  const snapshot = createMemo(() => JSON.stringify(draft));
  const dirty = createMemo(() => snapshot() !== savedAs());
  // The failed save's toast goes once the draft changes, another save starts or one succeeds: it never
  // outlives the problem it reported (the save bar keeps the words while they still apply).
  let dismissFailure = () => {};
  createEffect(on(snapshot, () => dismissFailure(), { defer: true }));

  /** Field errors come as data.fields.<index in the submitted list>.<prop>. */
  const fieldError = (key: string, prop: string) => {
    const i = submittedFields(draft).findIndex((f) => f.key === key);
    return i < 0 ? undefined : errorAt(errors(), `fields.${i}.${prop}`);
  };

  const move = (i: number, delta: -1 | 1) =>
    setDraft('fields', produce((list) => {
      const [item] = list.splice(i, 1);
      list.splice(i + delta, 0, item);
    }));

  const addField = (type: FieldType) => {
    const taken = new Set(draft.fields.map((f) => f.field.name));
    let name = type === 'relation' ? 'related' : type === 'geoPoint' ? 'location' : type;
    for (let n = 2; taken.has(name); n++) name = `${type}${n}`;
    const f = newField(type, name);
    // Keep the trailing created/updated dates last, where people expect them.
    let at = draft.fields.length;
    while (at > 0 && draft.fields[at - 1].field.type === 'autodate') at--;
    setDraft('fields', produce((list) => list.splice(at, 0, { key: f.id, field: f, removed: false })));
    queueMicrotask(() => document.getElementById(`fld-${f.id}-name`)?.focus());
  };

  const submit = async () => {
    setConfirmSave(false);
    dismissFailure();
    setBusy(true);
    setErrors({});
    setMessage('');
    setProblem(null);
    try {
      const body = toBody(draft, isNew(), props.collection);
      const saved = props.collection ? await app.api.updateCollection(props.collection.id, body) : await app.api.createCollection(body);
      setSavedAs(JSON.stringify(draft));
      await app.reloadCollections();
      toast(isNew() ? `Collection “${saved.name}” created.` : 'Changes saved.');
      if (isNew()) router.navigate(href(['collections', saved.name]));
      else if (saved.name !== props.collection?.name) router.navigate(href(['collections', saved.name, 'settings']), { replace: true });
    } catch (err) {
      // Said in words where the user is looking: next to what failed, in the save bar by the button,
      // and as a toast; the page scrolls to the first thing marked.
      const p = err instanceof ApiError ? explainSaveError(err, draft) : { summary: `Not saved: ${messageOf(err)}` };
      if (err instanceof ApiError) setErrors(err.data);
      setMessage(messageOf(err));
      setProblem(p);
      dismissFailure = toast(p.summary, 'error');
      queueMicrotask(() => document.querySelector('.editor .has-error')?.scrollIntoView({ block: 'center' }));
    } finally {
      setBusy(false);
    }
  };

  /** The collection's name typed anew: the server's complaint about the old one no longer applies. */
  const setName = (name: string) => {
    setDraft('name', name);
    if (errorAt(errors(), 'name')) setErrors(Object.fromEntries(Object.entries(errors()).filter(([k]) => k !== 'name')));
  };

  /** What to show under index `i`: the server's words for it, or the explained failure. */
  const indexError = (i: number) => errorUnder(errors(), `indexes.${i}`) ?? (problem()?.index?.at === i ? problem()?.index?.text : undefined);

  /** Saving a schema that drops fields asks first: their data goes with them. */
  const save = (e?: Event) => {
    e?.preventDefault();
    if (summarize(draft).dropped.length > 0) setConfirmSave(true);
    else void submit();
  };

  const remove = async () => {
    if (!props.collection) return;
    setBusy(true);
    try {
      await app.api.deleteCollection(props.collection.id);
      setConfirmDelete(false);
      toast(`Collection “${props.collection.name}” deleted.`);
      await app.reloadCollections();
      router.navigate('#/collections', { replace: true });
    } catch (err) {
      setConfirmDelete(false);
      setMessage(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return {
    isNew, draft, setDraft, errors, message, problem, indexError, busy, dirty, confirmSave, setConfirmSave, confirmDelete, setConfirmDelete,
    fieldError, move, addField, submit, save, remove, setName,
  };
}

export type CollectionForm = ReturnType<typeof createCollectionForm>;
