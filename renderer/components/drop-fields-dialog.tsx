// The warning before a schema save that drops fields: their data goes with them.
import { For, Show, type JSX } from 'solid-js';
import type { SaveSummary } from '../lib/collection-draft.js';
import { ConfirmDialog } from './dialog.js';

export function DropFieldsDialog(props: { collectionName: string; summary: SaveSummary; busy: boolean; onConfirm(): void; onCancel(): void }): JSX.Element {
  return (
    <ConfirmDialog title="Delete fields and their data?" confirmLabel="Save and delete data" danger busy={props.busy} onConfirm={() => props.onConfirm()} onCancel={() => props.onCancel()}>
      <p>These fields will be removed from every record of “{props.collectionName}”. Their data cannot be recovered:</p>
      <ul class="danger-list">
        <For each={props.summary.dropped}>
          {(f) => (
            <li>
              <code>{f.name}</code> ({f.type})
            </li>
          )}
        </For>
      </ul>
      <Show when={props.summary.renamed.length > 0}>
        <p class="muted">Renamed (data kept): {props.summary.renamed.map((r) => `${r.from} → ${r.to}`).join(', ')}</p>
      </Show>
    </ConfirmDialog>
  );
}
