// One record of a view collection, read-only: a view's records come from its query, so there is
// nothing to edit or delete (the server answers 400 to any write).
import { For, type JSX } from 'solid-js';
import type { Collection, RecordModel } from '../api.js';
import { formatDate, formatJson } from '../lib/format.js';
import { SidePanel } from './side-panel.js';

function shown(value: unknown, type: string): string {
  if (value === null || value === undefined || value === '') return '—';
  if (type === 'date' || type === 'autodate') return formatDate(value) || String(value);
  if (typeof value === 'string') return value;
  return formatJson(value, 2000);
}

export function ViewRecordPanel(props: { collection: Collection; record: RecordModel; onClose(): void }): JSX.Element {
  return (
    <SidePanel
      title={<><span class="muted">{props.collection.name}</span> record</>}
      label={`${props.collection.name} record (read-only)`}
      onClose={props.onClose}
      footer={<><span class="muted">View records are read-only.</span><span class="spacer" /><button type="button" class="btn" onClick={props.onClose}>Close</button></>}
    >
      <dl class="meta view-record">
        <For each={props.collection.fields}>
          {(f) => (
            <>
              <dt>{f.name}</dt>
              <dd><code>{shown(props.record[f.name], f.type)}</code></dd>
            </>
          )}
        </For>
      </dl>
    </SidePanel>
  );
}
