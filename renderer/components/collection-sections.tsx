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
  return (
    <section class="card section">
      <h2>General</h2>
      <div class="row-2">
        <FormField label="Name" for="col-name" error={errorAt(props.form.errors(), 'name')} hint="Letters, digits and _, starting with a letter. Used in URLs." required>
          <input id="col-name" class="mono" value={props.form.draft.name} placeholder="posts" disabled={props.system} autofocus={props.form.isNew()} onInput={(e) => props.form.setName(e.currentTarget.value)} />
        </FormField>
        <FormField label="Type" for="col-type" error={errorAt(props.form.errors(), 'type')} hint={props.form.isNew() ? 'Auth collections hold records that can sign in; a view\'s read-only records come from a query.' : 'The type cannot be changed.'}>
          <div class="segmented" id="col-type" role="radiogroup">
            <For each={['base', 'auth', 'view'] as const}>
              {(t) => (
                <button type="button" role="radio" aria-checked={props.form.draft.type === t} classList={{ on: props.form.draft.type === t }} disabled={!props.form.isNew()} onClick={() => props.form.setDraft('type', t)}>
                  <Icon name={t === 'auth' ? 'users' : t === 'view' ? 'search' : 'database'} /> {t === 'auth' ? 'Auth' : t === 'view' ? 'View' : 'Base'}
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
  return (
    <section class="card section">
      <h2>Fields</h2>
      <p class="muted section-intro">
        Fields are matched by id, so renaming keeps the data. Removing a field deletes its data when you save.
        <Show when={props.form.isNew()}>
          {props.form.draft.type === 'auth' ? ' The id, email, password, emailVisibility and verified fields are added automatically.' : ' The id field is added automatically.'}
        </Show>
      </p>
      <Show when={typeof errorAt(props.form.errors(), 'fields') === 'string'}>
        <p class="error-text">{errorAt(props.form.errors(), 'fields')}</p>
      </Show>
      <div class="field-list">
        <For each={props.form.draft.fields}>
          {(item, i) => (
            <FieldRow
              item={item}
              index={i()}
              count={props.form.draft.fields.length}
              collections={props.collections}
              error={(prop) => props.form.fieldError(item.key, prop)}
              update={(patch: Partial<Field>) => props.form.setDraft('fields', i(), 'field', patch as Field)}
              move={(d) => props.form.move(i(), d)}
              remove={() => (item.original ? props.form.setDraft('fields', i(), 'removed', true) : props.form.setDraft('fields', produce((l) => l.splice(i(), 1))))}
              restore={() => props.form.setDraft('fields', i(), 'removed', false)}
            />
          )}
        </For>
      </div>
      <AddFieldMenu onAdd={props.form.addField} />
    </section>
  );
}

export function SaveBar(props: { form: CollectionForm; system: boolean }): JSX.Element {
  return (
    <div class="save-bar">
      <Show when={!props.form.isNew() && !props.system}>
        <button type="button" class="btn btn-danger-ghost" onClick={() => props.form.setConfirmDelete(true)}>
          <Icon name="trash" /> Delete collection
        </button>
      </Show>
      <span class="spacer" />
      <Show when={props.form.problem()}>
        {(p) => (
          <p class="save-problem error-text" role="alert">
            {p().summary}
          </p>
        )}
      </Show>
      <Show when={props.form.isNew()}>
        <a class="btn" href="#/collections">Cancel</a>
      </Show>
      <button type="submit" class="btn btn-primary" disabled={props.form.busy()} title="Ctrl+S">
        {props.form.busy() ? 'Saving…' : props.form.isNew() ? 'Create collection' : 'Save changes'}
      </button>
    </div>
  );
}

/**
 * A view collection's query, and the fields the server inferred from it (read-only: they change with
 * the query, on save).
 */
export function ViewQuerySection(props: { form: CollectionForm; collection?: Collection }): JSX.Element {
  const error = () => errorAt(props.form.errors(), 'viewQuery');
  return (
    <section class="card section">
      <h2>View query</h2>
      <p class="muted section-intro">
        One <code>SELECT</code> (or <code>WITH … SELECT</code>) over other collections. It must return an <code>id</code> column;
        name every other column (<code>count(c.id) AS comments</code>). The records are read-only.
      </p>
      <FormField label="Query" for="col-view-query" error={typeof error() === 'string' ? error() : undefined} required>
        <textarea
          id="col-view-query"
          class="mono view-query"
          rows={8}
          spellcheck={false}
          value={props.form.draft.viewQuery}
          placeholder="SELECT p.id, p.title, count(c.id) AS comments FROM posts p LEFT JOIN comments c ON c.post = p.id GROUP BY p.id"
          onInput={(e) => props.form.setDraft('viewQuery', e.currentTarget.value)}
        />
      </FormField>
      <h3>Fields</h3>
      <Show when={props.collection?.fields.length} fallback={<p class="muted">The fields are inferred from the query when you save.</p>}>
        <ul class="view-fields" aria-label="Inferred fields">
          <For each={props.collection?.fields ?? []}>
            {(field) => (
              <li>
                <code>{field.name}</code> <span class="badge badge-muted">{field.type}</span>
              </li>
            )}
          </For>
        </ul>
        <p class="muted">Inferred from the query: they change when it does.</p>
      </Show>
    </section>
  );
}
