// What an import changed and what it could not bring over, as the server reported them: the diff of
// collections and fields (schema import, before and after applying) and the notes list.
import { For, Show, type JSX } from 'solid-js';
import type { CollectionDiff, TransferNote } from '../api.js';

function FieldChanges(props: { diff: CollectionDiff }): JSX.Element {
  const parts = () => [
    ...props.diff.fields.added.map((n) => ({ kind: 'added', n })),
    ...props.diff.fields.changed.map((n) => ({ kind: 'changed', n })),
    ...props.diff.fields.removed.map((n) => ({ kind: 'removed', n })),
  ];
  return (
    <Show when={props.diff.action !== 'removed' && (parts().length > 0 || props.diff.settings.length > 0)}>
      <div class="diff-fields">
        <For each={parts()}>{(p) => <span class={`diff-chip diff-${p.kind}`} title={`field ${p.kind}`}>{p.kind === 'added' ? '+' : p.kind === 'removed' ? '−' : '~'} {p.n}</span>}</For>
        <For each={props.diff.settings.filter((s) => s !== 'name')}>{(s) => <span class="diff-chip diff-changed" title="setting changed">~ {s}</span>}</For>
      </div>
    </Show>
  );
}

export function SchemaDiff(props: { changes: CollectionDiff[] }): JSX.Element {
  const shown = () => props.changes.filter((c) => c.action !== 'unchanged');
  const same = () => props.changes.length - shown().length;
  return (
    <div class="schema-diff">
      <ul class="diff-list">
        <For each={shown()}>
          {(c) => (
            <li class={`diff-${c.action}`} data-collection={c.name}>
              <span class="diff-action">{c.action}</span> <b>{c.name}</b>
              <FieldChanges diff={c} />
            </li>
          )}
        </For>
      </ul>
      <Show when={same() > 0}>
        <p class="muted small">{same()} collection{same() === 1 ? '' : 's'} unchanged.</p>
      </Show>
    </div>
  );
}

export function TransferNotes(props: { notes: TransferNote[] }): JSX.Element {
  return (
    <Show when={props.notes.length > 0}>
      <details class="transfer-notes" open>
        <summary>Left out or changed ({props.notes.length})</summary>
        <ul>
          <For each={props.notes}>
            {(n) => (
              <li classList={{ 'note-warning': n.warning === true }}>
                <Show when={n.collection !== '*'}><b>{n.collection}</b> · </Show>
                <span class="mono">{n.item}</span>: {n.reason}
              </li>
            )}
          </For>
        </ul>
      </details>
    </Show>
  );
}
