// The records filter: a search box with completion from the collection's schema, a clear button and
// the help toggle. Plain words search the text fields (lib/format.ts filterOfBox), an expression
// filters. Enter applies; Escape only closes the suggestions (what was typed stays); with the box empty,
// focus or ArrowDown offers the collection's recent filters.
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
  /** Recent filters of this collection, newest first. */
  history: string[];
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
        placeholder='Search, or filter: title ~ "hello"'
        ariaLabel="Filter records"
        ariaInvalid={props.invalid}
        complete={(text, caret) => complete(text, caret, { collection: props.collection, collections: app.collections() ?? [], mode: 'filter' })}
        onInput={props.onInput}
        onEnter={() => props.onApply()}
        whenEmpty={() => props.history.map((text) => ({ text, detail: 'recent', apply: true }))}
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
