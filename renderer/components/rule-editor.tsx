// One API rule: null ("locked", superusers only) vs "" (everyone, guests included) vs an expression.
// The lock is a toggle of its own so the difference between null and "" is never a matter of whitespace.
import { For, Show, type JSX } from 'solid-js';
import { Icon } from './icon.js';
import { AutocompleteField } from './autocomplete-field.js';
import type { Completion } from '../lib/filter-complete.js';

const noCompletion = (_text: string, caret: number): Completion => ({ from: caret, to: caret, items: [] });

export interface RuleEditorProps {
  id: string;
  label: string;
  /** What the rule controls, e.g. "who can list and search records". */
  what: string;
  value: string | null;
  error?: string;
  disabled?: boolean;
  /** manageRule cannot be "" (PocketBase: null or an expression). */
  emptyMeansEveryone?: boolean;
  /** What an empty rule means, when "everyone, including guests" does not fit (authRule). */
  openText?: string;
  presets?: Array<{ label: string; value: string }>;
  complete?: (text: string, caret: number) => Completion;
  onChange(value: string | null): void;
}

export function RuleEditor(props: RuleEditorProps): JSX.Element {
  const locked = () => props.value === null;
  const status = () => {
    if (props.value === null) return { cls: '', text: '' };
    if (props.value.trim() === '')
      return props.emptyMeansEveryone === false
        ? { cls: 'rule-invalid', text: 'Write an expression, or lock the rule.' }
        : { cls: 'rule-open', text: props.openText ?? `Everyone, including guests, ${props.what}.` };
    return { cls: 'rule-expr', text: `Only requests matching the expression ${props.what}; superusers always can.` };
  };
  return (
    <div class="rule" classList={{ 'has-error': !!props.error, locked: locked() }}>
      <div class="rule-head">
        <label for={props.id} class="rule-label">{props.label}</label>
        <span class="spacer" />
        <Show when={!props.disabled && props.presets}>
          <span class="rule-presets" aria-label="Presets">
            <For each={props.presets}>
              {(p) => (
                <button type="button" class="chip chip-sm" classList={{ 'chip-on': props.value === p.value }} onClick={() => props.onChange(p.value)} title={p.value === '' ? 'Empty rule' : p.value}>
                  {p.label}
                </button>
              )}
            </For>
          </span>
        </Show>
        <button
          type="button"
          class="lock-toggle"
          classList={{ on: locked() }}
          aria-pressed={locked()}
          disabled={props.disabled}
          onClick={() => props.onChange(locked() ? '' : null)}
          title={locked() ? 'Unlock to allow more than superusers' : 'Lock: superusers only'}
        >
          <Icon name={locked() ? 'lock' : 'unlock'} size={14} />
          {locked() ? 'Locked' : 'Unlocked'}
        </button>
      </div>
      <Show
        when={!locked()}
        fallback={
          <div class="rule-locked-box">
            <Icon name="lock" size={14} />
            <span>
              <b>Superusers only.</b> Nobody else {props.what}.
            </span>
          </div>
        }
      >
        <AutocompleteField
          id={props.id}
          multiline
          class="mono rule-input"
          rows={2}
          placeholder={props.emptyMeansEveryone === false ? 'e.g. @request.auth.id != ""' : 'Leave empty to allow everyone, including guests'}
          value={props.value ?? ''}
          disabled={props.disabled}
          ariaInvalid={!!props.error}
          complete={props.complete ?? noCompletion}
          onInput={(v) => props.onChange(v)}
        />
      </Show>
      <Show when={!locked()}>
        <p class={`rule-status ${status().cls}`}>{status().text}</p>
      </Show>
      <Show when={props.error}>
        <p class="error-text rule-error" role="alert">{props.error}</p>
      </Show>
    </div>
  );
}
