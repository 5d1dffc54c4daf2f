// The indexes Deskbase keeps by itself for a collection (the server's `maintainedIndexes`): shown read
// only beside the user's indexes, so people see why the default sort is fast without adding one, and
// that these are not part of the collection's `indexes` (nor of an exported schema).
import { For, Show, type JSX } from 'solid-js';
import type { Collection, MaintainedIndex } from '../api.js';

const PURPOSE: Record<MaintainedIndex['purpose'], string> = {
  email: 'unique emails, for sign-in',
  defaultSort: 'the default sort of lists (newest first)',
};

export function MaintainedIndexes(props: { collection: Collection }): JSX.Element {
  const fieldName = (id: string) => props.collection.fields.find((f) => f.id === id)?.name ?? id;
  return (
    <Show when={(props.collection.maintainedIndexes ?? []).length > 0}>
      <div class="maintained-indexes">
        <h3>Maintained by Deskbase</h3>
        <p class="muted">Created, updated and removed with the collection. They are not listed in its indexes and are not exported with the schema.</p>
        <ul>
          <For each={props.collection.maintainedIndexes}>
            {(ix) => (
              <li>
                <code>{ix.name}</code> on <b>{ix.fields.map(fieldName).join(', ')}</b>
                <Show when={ix.unique}> (unique)</Show>: {PURPOSE[ix.purpose]}
              </li>
            )}
          </For>
        </ul>
      </div>
    </Show>
  );
}
