import type { FieldUi } from './types.js';
import { formatDate } from '../lib/format.js';
import { CheckOpt } from './option-controls.js';

export const autodateUi: FieldUi<'autodate'> = {
  label: 'Autodate',
  glyph: '⟳',
  description: 'Set by the server when a record is created and/or updated.',
  defaults: () => ({ onCreate: true, onUpdate: false }),
  // Not settable through the API (PocketBase ignores submitted autodate values): shown, never edited.
  Input: (props) => (
    <input id={props.id} type="text" readOnly class="readonly" value={formatDate(props.value) || 'Set automatically'} />
  ),
  Options: (props) => (
    <div class="opt-grid">
      <CheckOpt id={`${props.idPrefix}-onCreate`} label="On create" checked={props.field.onCreate} disabled={props.locked} onChange={(v) => props.update({ onCreate: v })} />
      <CheckOpt id={`${props.idPrefix}-onUpdate`} label="On update" checked={props.field.onUpdate} disabled={props.locked} onChange={(v) => props.update({ onUpdate: v })} />
      {props.error('onCreate') ?? props.error('onUpdate') ? <small class="error-text">{props.error('onCreate') ?? props.error('onUpdate')}</small> : null}
    </div>
  ),
};
