// The records filter: a search box with completion from the collection's schema, a clear button and
// the help toggle. Enter applies, Escape clears.
import { Show, type JSX } from 'solid-js';
import type { Collection } from '../api.js';
import { useApp } from '../app-context.js';
import { complete } from '../lib/filter-complete.js';
import { AutocompleteField } from './autocomplete-field.js';
import { Icon } from './icon.js';

export function FilterBox(props: {
  collection: Collection;
  value: string;
  applied: string;
  invalid: boolean;
  helpOpen: boolean;
  onInput(v: string): void;
  onApply(v?: string): void;
  onToggleHelp(): void;
}): JSX.Element {
  const app = useApp();
  return (
    <form class="filter-box" classList={{ 'has-error': props.invalid }} onSubmit={(e) => (e.preventDefault(), props.onApply())} role="search">
      <Icon name="search" />
      <AutocompleteField
        class="mono"
        value={props.value}
        placeholder='Filter, e.g. title ~ "hello"'
        ariaLabel="Filter records"
        ariaInvalid={props.invalid}
        complete={(text, caret) => complete(text, caret, { collection: props.collection, collections: app.collections() ?? [], mode: 'filter' })}
        onInput={props.onInput}
        onEnter={() => props.onApply()}
        onEscape={() => (props.onInput(''), props.onApply(''))}
      />
      <Show when={props.applied !== ''}>
        <button type="button" class="btn-icon" aria-label="Clear filter" onClick={() => (props.onInput(''), props.onApply(''))}>
          <Icon name="x" />
        </button>
      </Show>
      <button type="button" class="btn-icon" classList={{ active: props.helpOpen }} aria-label="Filter help" aria-expanded={props.helpOpen} onClick={() => props.onToggleHelp()}>
        <Icon name="help" />
      </button>
    </form>
  );
}
