// A cheat sheet of the filter language (PocketBase's filter syntax) using this collection's own field names.
import { For, type JSX } from 'solid-js';
import type { Collection } from '../api.js';

const OPERATORS: Array<[string, string]> = [
  ['=', 'equal'],
  ['!=', 'not equal'],
  ['> >= < <=', 'greater / less than'],
  ['~', 'contains (text, % for wildcards)'],
  ['!~', 'does not contain'],
  ['?= ?~ …', 'any item matches (relation paths such as tags.name ?= "x")'],
  [':each', 'the items of a multi-valued field: tags:each ?= "x" (has x), tags:each = "x" (only x)'],
  [':length', 'how many items: tags:length > 2'],
  ['&& ||', 'and / or, group with ( )'],
];

export function FilterHelp(props: { collection: Collection; onPick(example: string): void }): JSX.Element {
  const f = (type: string) => props.collection.fields.find((x) => x.type === type && !x.system)?.name;
  const examples = () => {
    const out: string[] = [];
    const text = f('text') ?? 'id';
    out.push(`${text} ~ "hello"`);
    if (f('number')) out.push(`${f('number')} >= 10`);
    if (f('bool')) out.push(`${f('bool')} = true`);
    if (props.collection.fields.some((x) => x.name === 'created')) out.push(`created >= "2025-01-01"`);
    if (f('relation')) out.push(`${f('relation')}.id != ""`);
    // A multi-valued field compared directly is its stored JSON text, so `tags ?= "eco"` finds nothing
    // (PocketBase does the same): its items are reached with :each.
    const multi = props.collection.fields.find((x) => ['select', 'relation', 'file'].includes(x.type) && 'maxSelect' in x && typeof x.maxSelect === 'number' && x.maxSelect > 1);
    if (multi) {
      const sample = multi.type === 'select' && multi.values.length > 0 ? multi.values[0] : 'VALUE';
      out.push(`${multi.name}:each ?= "${sample}"`);
    }
    out.push(`(${text} = "a" || ${text} = "b")`);
    return out;
  };
  return (
    <div class="filter-help">
      <div>
        <h4>Operators</h4>
        <dl class="op-list">
          <For each={OPERATORS}>
            {([op, meaning]) => (
              <>
                <dt><code>{op}</code></dt>
                <dd>{meaning}</dd>
              </>
            )}
          </For>
        </dl>
      </div>
      <div>
        <h4>Examples (click to use)</h4>
        <ul class="examples">
          <For each={examples()}>
            {(ex) => (
              <li>
                <button type="button" class="link mono" onClick={() => props.onPick(ex)}>{ex}</button>
              </li>
            )}
          </For>
        </ul>
        <p class="hint">Text goes in quotes; dates compare as UTC text, as the table shows them. Fields: {props.collection.fields.filter((x) => x.type !== 'password').map((x) => x.name).join(', ')}.</p>
      </div>
    </div>
  );
}
