// Create or edit a collection: name and type, fields, API rules, indexes, auth options.
// Saving a schema that drops fields asks first: their data goes with them.
import { createMemo, createSignal, For, onCleanup, onMount, Show, type JSX } from 'solid-js';
import { createStore, produce } from 'solid-js/store';
import type { Collection, ErrorData, Field } from '../api.js';
import { ApiError, errorAt, errorUnder, messageOf } from '../api.js';
import type { FieldType, RuleKey } from '../../server/core/types.js';
import { useApp } from '../app-context.js';
import { href, useRouter } from '../router.js';
import { useToast } from '../components/toasts.js';
import { draftFromCollection, emptyDraft, identityCandidates, newField, submittedFields, summarize, toBody } from '../lib/collection-draft.js';
import { FieldRow } from '../components/field-row.js';
import { AddFieldMenu } from '../components/add-field-menu.js';
import { IndexesEditor } from '../components/indexes-editor.js';
import { MaintainedIndexes } from '../components/maintained-indexes.js';
import { RulesSection } from '../components/rules-section.js';
import { ConfirmDialog } from '../components/dialog.js';
import { DropFieldsDialog } from '../components/drop-fields-dialog.js';
import { IdentityFields } from '../components/identity-fields.js';
import { LeaveGuard } from '../components/leave-guard.js';
import { FormField } from '../components/form-field.js';
import { Icon } from '../components/icon.js';

export function CollectionEditor(props: { collection?: Collection }): JSX.Element {
  const app = useApp();
  const router = useRouter();
  const toast = useToast();
  const isNew = () => !props.collection;
  const [draft, setDraft] = createStore(props.collection ? draftFromCollection(props.collection) : emptyDraft());
  const [errors, setErrors] = createSignal<ErrorData>({});
  const [message, setMessage] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const [confirmSave, setConfirmSave] = createSignal(false);
  const [confirmDelete, setConfirmDelete] = createSignal(false);
  const system = () => !!props.collection?.system;
  // Unsaved when the working copy differs from what was loaded or last saved (the store is read deeply).
  const [savedAs, setSavedAs] = createSignal(JSON.stringify(draft));
  const dirty = createMemo(() => JSON.stringify(draft) !== savedAs());

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
    setBusy(true);
    setErrors({});
    setMessage('');
    try {
      const body = toBody(draft, isNew());
      const saved = props.collection ? await app.api.updateCollection(props.collection.id, body) : await app.api.createCollection(body);
      setSavedAs(JSON.stringify(draft));
      await app.reloadCollections();
      toast(isNew() ? `Collection “${saved.name}” created.` : 'Changes saved.');
      if (isNew()) router.navigate(href(['collections', saved.name]));
      else if (saved.name !== props.collection?.name) router.navigate(href(['collections', saved.name, 'settings']), { replace: true });
    } catch (err) {
      if (err instanceof ApiError) setErrors(err.data);
      setMessage(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
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

  // Ctrl/Cmd+S saves from anywhere in the editor.
  const onKey = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 's' && !confirmSave() && !confirmDelete()) {
      e.preventDefault();
      if (!busy()) save();
    }
  };
  onMount(() => document.addEventListener('keydown', onKey));
  onCleanup(() => document.removeEventListener('keydown', onKey));

  const visibleRuleError = (k: RuleKey) => errorAt(errors(), k);
  const otherErrors = () =>
    Object.keys(errors()).filter((k) => !['name', 'type', 'fields', 'indexes', 'identityFields', 'listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule', 'authRule', 'manageRule'].includes(k));

  return (
    <form class="editor" onSubmit={save} novalidate>
      <Show when={isNew()}>
        <header class="page-header">
          <div class="page-title">
            <span class="crumb">Collections</span>
            <span class="crumb-sep">/</span>
            <h1>New collection</h1>
          </div>
        </header>
      </Show>
      <Show when={message()}>
        <div class="alert alert-error" role="alert">
          {message()}
          <For each={otherErrors()}>{(k) => <div><b>{k}</b>: {errorUnder(errors(), k)}</div>}</For>
        </div>
      </Show>

      <section class="card section">
        <h2>General</h2>
        <div class="row-2">
          <FormField label="Name" for="col-name" error={errorAt(errors(), 'name')} hint="Letters, digits and _, starting with a letter. Used in URLs." required>
            <input id="col-name" class="mono" value={draft.name} placeholder="posts" disabled={system()} autofocus={isNew()} onInput={(e) => setDraft('name', e.currentTarget.value)} />
          </FormField>
          <FormField label="Type" for="col-type" error={errorAt(errors(), 'type')} hint={isNew() ? 'Auth collections hold records that can sign in.' : 'The type cannot be changed.'}>
            <div class="segmented" id="col-type" role="radiogroup">
              <For each={['base', 'auth'] as const}>
                {(t) => (
                  <button type="button" role="radio" aria-checked={draft.type === t} classList={{ on: draft.type === t }} disabled={!isNew()} onClick={() => setDraft('type', t)}>
                    <Icon name={t === 'auth' ? 'users' : 'database'} /> {t === 'auth' ? 'Auth' : 'Base'}
                  </button>
                )}
              </For>
            </div>
          </FormField>
        </div>
      </section>

      <section class="card section">
        <h2>Fields</h2>
        <p class="muted section-intro">
          Fields are matched by id, so renaming keeps the data. Removing a field deletes its data when you save.
          <Show when={isNew()}>
            {draft.type === 'auth' ? ' The id, email, password, emailVisibility and verified fields are added automatically.' : ' The id field is added automatically.'}
          </Show>
        </p>
        <Show when={typeof errorAt(errors(), 'fields') === 'string'}>
          <p class="error-text">{errorAt(errors(), 'fields')}</p>
        </Show>
        <div class="field-list">
          <For each={draft.fields}>
            {(item, i) => (
              <FieldRow
                item={item}
                index={i()}
                count={draft.fields.length}
                collections={app.collections() ?? []}
                error={(prop) => fieldError(item.key, prop)}
                update={(patch: Partial<Field>) => setDraft('fields', i(), 'field', patch as Field)}
                move={(d) => move(i(), d)}
                remove={() => (item.original ? setDraft('fields', i(), 'removed', true) : setDraft('fields', produce((l) => l.splice(i(), 1))))}
                restore={() => setDraft('fields', i(), 'removed', false)}
              />
            )}
          </For>
        </div>
        <AddFieldMenu onAdd={addField} />
      </section>

      <RulesSection
        type={draft.type}
        rules={draft.rules}
        disabled={system()}
        error={visibleRuleError}
        onChange={(k, v) => setDraft('rules', k, v)}
      />

      <Show when={draft.type === 'auth'}>
        <IdentityFields candidates={identityCandidates(draft)} value={draft.identityFields} error={errorUnder(errors(), 'identityFields')} onChange={(v) => setDraft('identityFields', v)} />
      </Show>

      <section class="card section">
        <h2>Indexes</h2>
        <IndexesEditor indexes={draft.indexes} fields={draft.fields} collectionName={draft.name} error={(p) => errorUnder(errors(), p)} onChange={(ix) => setDraft('indexes', ix)} />
        <Show when={props.collection}>{(c) => <MaintainedIndexes collection={c()} />}</Show>
      </section>

      <div class="save-bar">
        <Show when={!isNew() && !system()}>
          <button type="button" class="btn btn-danger-ghost" onClick={() => setConfirmDelete(true)}>
            <Icon name="trash" /> Delete collection
          </button>
        </Show>
        <span class="spacer" />
        <Show when={isNew()}>
          <a class="btn" href="#/collections">Cancel</a>
        </Show>
        <button type="submit" class="btn btn-primary" disabled={busy()} title="Ctrl+S">
          {busy() ? 'Saving…' : isNew() ? 'Create collection' : 'Save changes'}
        </button>
      </div>

      <LeaveGuard when={dirty()} title={isNew() ? 'Discard the new collection?' : `Leave “${props.collection?.name}” without saving?`}>
        <p>{isNew() ? 'The collection has not been created yet.' : 'Your changes to the fields, rules and indexes are not saved yet.'} They will be lost.</p>
      </LeaveGuard>
      <Show when={confirmSave()}>
        <DropFieldsDialog collectionName={props.collection?.name ?? ''} summary={summarize(draft)} busy={busy()} onConfirm={() => void submit()} onCancel={() => setConfirmSave(false)} />
      </Show>
      <Show when={confirmDelete()}>
        <ConfirmDialog title={`Delete “${props.collection?.name}”?`} confirmLabel="Delete collection" danger busy={busy()} onConfirm={() => void remove()} onCancel={() => setConfirmDelete(false)}>
          <p>The collection, its table and <b>all its records</b> will be deleted. This cannot be undone.</p>
        </ConfirmDialog>
      </Show>
    </form>
  );
}
