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
        <FormField label="Type" for="col-type" error={errorAt(f.errors(), 'type')} hint={f.isNew() ? 'Auth collections hold records that can sign in; a view\'s read-only records come from a query.' : 'The type cannot be changed.'}>
          <div class="segmented" id="col-type" role="radiogroup">
            <For each={['base', 'auth', 'view'] as const}>
              {(t) => (
                <button type="button" role="radio" aria-checked={f.draft.type === t} classList={{ on: f.draft.type === t }} disabled={!f.isNew()} onClick={() => f.setDraft('type', t)}>
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

/**
 * A view collection's query, and the fields the server inferred from it (read-only: they change with
 * the query, on save).
 */
export function ViewQuerySection(props: { form: CollectionForm; collection?: Collection }): JSX.Element {
  const f = props.form;
  const error = () => errorAt(f.errors(), 'viewQuery');
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
          value={f.draft.viewQuery}
          placeholder="SELECT p.id, p.title, count(c.id) AS comments FROM posts p LEFT JOIN comments c ON c.post = p.id GROUP BY p.id"
          onInput={(e) => f.setDraft('viewQuery', e.currentTarget.value)}
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
