// Create or edit a collection: name and type, fields, API rules, indexes, auth options. The working
// copy and the actions live in collection-form.ts; the sections render it.
import { For, Show, type JSX } from 'solid-js';
import type { Collection } from '../api.js';
import { errorAt, errorUnder } from '../api.js';
import type { RuleKey } from '../../server/model/types.js';
import { useApp } from '../app-context.js';
import { useRouter } from '../router.js';
import { useToast } from '../components/toasts.js';
import { identityCandidates, submittedFields, summarize } from '../lib/collection-draft.js';
import { complete } from '../lib/filter-complete.js';
import { useSaveShortcut } from '../lib/save-shortcut.js';
import { createCollectionForm } from './collection-form.js';
import { FieldsSection, GeneralSection, SaveBar, ViewQuerySection } from '../components/collection-sections.js';
import { IndexesEditor } from '../components/indexes-editor.js';
import { MaintainedIndexes } from '../components/maintained-indexes.js';
import { RulesSection } from '../components/rules-section.js';
import { ConfirmDialog } from '../components/dialog.js';
import { DropFieldsDialog } from '../components/drop-fields-dialog.js';
import { IdentityFields } from '../components/identity-fields.js';
import { AuthOptionsSections } from '../components/auth-options.js';
import { LeaveGuard } from '../components/leave-guard.js';

/** Errors shown in the alert at the top: the keys no section shows next to its input. */
const SHOWN_IN_PLACE = ['name', 'type', 'fields', 'indexes', 'identityFields', 'listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule', 'authRule', 'manageRule', 'viewQuery',
  'otp', 'mfa', 'oauth2', 'authAlert', 'authToken', 'verificationToken', 'passwordResetToken', 'emailChangeToken', 'fileToken',
  'verificationTemplate', 'resetPasswordTemplate', 'confirmEmailChangeTemplate'];

export function CollectionEditor(props: { collection?: Collection }): JSX.Element {
  const app = useApp();
  const form = createCollectionForm(props, app, useRouter(), useToast());
  const { draft, setDraft, errors } = form;
  const system = () => !!props.collection?.system;
  useSaveShortcut(['s'], () => {
    if (!form.busy()) form.save();
  }, () => !form.confirmSave() && !form.confirmDelete());
  const otherErrors = () => Object.keys(errors()).filter((k) => !SHOWN_IN_PLACE.includes(k));

  return (
    <form class="editor" onSubmit={form.save} novalidate>
      <Show when={form.isNew()}>
        <header class="page-header">
          <div class="page-title">
            <span class="crumb">Collections</span>
            <span class="crumb-sep">/</span>
            <h1>New collection</h1>
          </div>
        </header>
      </Show>
      {/* Only what no section shows in place; the rest is next to its input and in the save bar. */}
      <Show when={form.message() && otherErrors().length > 0}>
        <div class="alert alert-error" role="alert">
          {form.message()}
          <For each={otherErrors()}>{(k) => <div><b>{k}</b>: {errorUnder(errors(), k)}</div>}</For>
        </div>
      </Show>

      <GeneralSection form={form} system={system()} />
      <Show when={draft.type === 'view'} fallback={<FieldsSection form={form} collections={app.collections() ?? []} />}>
        <ViewQuerySection form={form} collection={props.collection} />
      </Show>
      <RulesSection
        type={draft.type}
        rules={draft.rules}
        disabled={system()}
        error={(k: RuleKey) => errorAt(errors(), k)}
        onChange={(k, v) => setDraft('rules', k, v)}
        complete={(text, caret) =>
          complete(text, caret, {
            collection: { id: props.collection?.id, name: draft.name, type: draft.type, fields: submittedFields(draft).map((f) => f.field) },
            collections: app.collections() ?? [],
            mode: 'rule',
          })
        }
      />
      <Show when={draft.type === 'auth'}>
        <IdentityFields candidates={identityCandidates(draft)} value={draft.identityFields} error={errorUnder(errors(), 'identityFields')} onChange={(v) => setDraft('identityFields', v)} />
        <Show when={draft.auth} fallback={<p class="muted small auth-options-later">Sign-in methods, token durations and e-mail templates can be set once the collection is created.</p>}>
          {(auth) => <AuthOptionsSections options={auth()} setDraft={setDraft} error={(path) => errorAt(errors(), path)} />}
        </Show>
      </Show>
      <Show when={draft.type !== 'view'}>
      <section class="card section">
        <h2>Indexes</h2>
        <IndexesEditor indexes={draft.indexes} fields={draft.fields} collectionName={draft.name} error={form.indexError} onChange={(ix) => setDraft('indexes', ix)} />
        <Show when={typeof errorAt(errors(), 'indexes') === 'string' && form.problem()?.index === undefined}>
          <p class="error-text" role="alert">{errorAt(errors(), 'indexes')}</p>
        </Show>
        <Show when={props.collection}>{(c) => <MaintainedIndexes collection={c()} />}</Show>
      </section>
      </Show>
      <SaveBar form={form} system={system()} />

      <LeaveGuard when={form.dirty()} title={form.isNew() ? 'Discard the new collection?' : `Leave “${props.collection?.name}” without saving?`}>
        <p>{form.isNew() ? 'The collection has not been created yet.' : 'Your changes to the fields, rules and indexes are not saved yet.'} They will be lost.</p>
      </LeaveGuard>
      <Show when={form.confirmSave()}>
        <DropFieldsDialog collectionName={props.collection?.name ?? ''} summary={summarize(draft)} busy={form.busy()} onConfirm={() => void form.submit()} onCancel={() => form.setConfirmSave(false)} />
      </Show>
      <Show when={form.confirmDelete()}>
        <ConfirmDialog title={`Delete “${props.collection?.name}”?`} confirmLabel="Delete collection" danger busy={form.busy()} onConfirm={() => void form.remove()} onCancel={() => form.setConfirmDelete(false)}>
          <p>The collection, its table and <b>all its records</b> will be deleted. This cannot be undone.</p>
        </ConfirmDialog>
      </Show>
    </form>
  );
}
