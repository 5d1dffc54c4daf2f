// The API rules of a collection, with presets for the common cases.
import { For, Show, type JSX } from 'solid-js';
import type { CollectionType, RuleKey } from '../../server/model/types.js';
import { RuleEditor } from './rule-editor.js';
import type { Completion } from '../lib/filter-complete.js';

const RULES: Array<{ key: RuleKey; label: string; what: string }> = [
  { key: 'listRule', label: 'List / search', what: 'can list and search records' },
  { key: 'viewRule', label: 'View', what: 'can view a record' },
  { key: 'createRule', label: 'Create', what: 'can create records' },
  { key: 'updateRule', label: 'Update', what: 'can update records' },
  { key: 'deleteRule', label: 'Delete', what: 'can delete records' },
];
const AUTH_RULES: Array<{ key: RuleKey; label: string; what: string }> = [
  { key: 'authRule', label: 'Sign in (authRule)', what: 'can sign in' },
  { key: 'manageRule', label: 'Manage (manageRule)', what: 'can manage other accounts (email, password, verified)' },
];

export function RulesSection(props: {
  type: CollectionType;
  rules: Record<RuleKey, string | null>;
  disabled: boolean;
  error(key: RuleKey): string | undefined;
  onChange(key: RuleKey, value: string | null): void;
  /** Completion for the rule text (lib/filter-complete.ts over the collection being edited). */
  complete?: (text: string, caret: number) => Completion;
}): JSX.Element {
  const presets = (key: RuleKey) => {
    const list = [
      { label: 'Everyone', value: '' },
      { label: 'Signed-in users', value: '@request.auth.id != ""' },
    ];
    if (props.type === 'auth' && key !== 'createRule') list.push({ label: 'Only the account itself', value: 'id = @request.auth.id' });
    return list;
  };
  return (
    <section class="card section">
      <h2>API rules</h2>
      <p class="muted section-intro">
        Who may do what through the API. <b>Locked</b> means superusers only. An <b>empty</b> rule lets everyone in, guests
        included. An expression uses the filter language, e.g. <code>@request.auth.id != ""</code> or{' '}
        <code>published = true</code>. Superusers always have access.
      </p>
      <Show when={props.disabled}>
        <p class="alert alert-info">The rules of system collections cannot be changed.</p>
      </Show>
      <div class="rules">
        {/* a view's records are read-only: it has list and view rules only */}
        <For each={props.type === 'view' ? RULES.filter((r) => r.key === 'listRule' || r.key === 'viewRule') : RULES}>
          {(r) => <RuleEditor id={`rule-${r.key}`} label={r.label} what={r.what} value={props.rules[r.key]} error={props.error(r.key)} disabled={props.disabled} presets={presets(r.key)} complete={props.complete} onChange={(v) => props.onChange(r.key, v)} />}
        </For>
        <Show when={props.type === 'auth'}>
          <For each={AUTH_RULES}>
            {(r) => (
              <RuleEditor
                id={`rule-${r.key}`}
                label={r.label}
                what={r.what}
                value={props.rules[r.key]}
                error={props.error(r.key)}
                disabled={props.disabled}
                emptyMeansEveryone={r.key !== 'manageRule'}
                openText={r.key === 'authRule' ? 'Any account with valid credentials can sign in.' : undefined}
                presets={r.key === 'authRule' ? [{ label: 'Everyone', value: '' }, { label: 'Verified only', value: 'verified = true' }] : undefined}
                complete={props.complete}
                onChange={(v) => props.onChange(r.key, v)}
              />
            )}
          </For>
        </Show>
      </div>
    </section>
  );
}
