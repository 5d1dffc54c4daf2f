// The collection editor's sections that are its own (name and type, the field list, the save bar):
// each reads and changes the editor's working copy (pages/collection-form.ts).
import { For, Show, type JSX } from 'solid-js';
import { produce } from 'solid-js/store';
import type { Collection, Field } from '../api.js';
import { errorAt } from '../api.js';
import type { CollectionForm } from '../pages/collection-form.js';
import { AddFieldMenu } from './add-field-menu.js';
import { FieldRow } from './field-row.js';
import { FormField } from './form-field.js';
import { Icon } from './icon.js';

export function GeneralSection(props: { form: CollectionForm; system: boolean }): JSX.Element {
  const f = props.form;
  return (
    <section class="card section">
      <h2>General</h2>
      <div class="row-2">
        <FormField label="Name" for="col-name" error={errorAt(f.errors(), 'name')} hint="Letters, digits and _, starting with a letter. Used in URLs." required>
          <input id="col-name" class="mono" value={f.draft.name} placeholder="posts" disabled={props.system} autofocus={f.isNew()} onInput={(e) => f.setName(e.currentTarget.value)} />
        </FormField>
        <FormField label="Type" for="col-type" error={errorAt(f.errors(), 'type')} hint={f.isNew() ? 'Auth collections hold records that can sign in.' : 'The type cannot be changed.'}>
          <div class="segmented" id="col-type" role="radiogroup">
            <For each={['base', 'auth'] as const}>
              {(t) => (
                <button type="button" role="radio" aria-checked={f.draft.type === t} classList={{ on: f.draft.type === t }} disabled={!f.isNew()} onClick={() => f.setDraft('type', t)}>
                  <Icon name={t === 'auth' ? 'users' : 'database'} /> {t === 'auth' ? 'Auth' : 'Base'}
                </button>
              )}
            </For>
          </div>
        </FormField>
      </div>
    </section>
  );
}

export function FieldsSection(props: { form: CollectionForm; collections: Collection[] }): JSX.Element {
  const f = props.form;
  return (
    <section class="card section">
      <h2>Fields</h2>
      <p class="muted section-intro">
        Fields are matched by id, so renaming keeps the data. Removing a field deletes its data when you save.
        <Show when={f.isNew()}>
          {f.draft.type === 'auth' ? ' The id, email, password, emailVisibility and verified fields are added automatically.' : ' The id field is added automatically.'}
        </Show>
      </p>
      <Show when={typeof errorAt(f.errors(), 'fields') === 'string'}>
        <p class="error-text">{errorAt(f.errors(), 'fields')}</p>
      </Show>
      <div class="field-list">
        <For each={f.draft.fields}>
          {(item, i) => (
            <FieldRow
              item={item}
              index={i()}
              count={f.draft.fields.length}
              collections={props.collections}
              error={(prop) => f.fieldError(item.key, prop)}
              update={(patch: Partial<Field>) => f.setDraft('fields', i(), 'field', patch as Field)}
              move={(d) => f.move(i(), d)}
              remove={() => (item.original ? f.setDraft('fields', i(), 'removed', true) : f.setDraft('fields', produce((l) => l.splice(i(), 1))))}
              restore={() => f.setDraft('fields', i(), 'removed', false)}
            />
          )}
        </For>
      </div>
      <AddFieldMenu onAdd={f.addField} />
    </section>
  );
}

export function SaveBar(props: { form: CollectionForm; system: boolean }): JSX.Element {
  const f = props.form;
  return (
    <div class="save-bar">
      <Show when={!f.isNew() && !props.system}>
        <button type="button" class="btn btn-danger-ghost" onClick={() => f.setConfirmDelete(true)}>
          <Icon name="trash" /> Delete collection
        </button>
      </Show>
      <span class="spacer" />
      <Show when={f.problem()}>
        {(p) => (
          <p class="save-problem error-text" role="alert">
            {p().summary}
          </p>
        )}
      </Show>
      <Show when={f.isNew()}>
        <a class="btn" href="#/collections">Cancel</a>
      </Show>
      <button type="submit" class="btn btn-primary" disabled={f.busy()} title="Ctrl+S">
        {f.busy() ? 'Saving…' : f.isNew() ? 'Create collection' : 'Save changes'}
      </button>
    </div>
  );
}
