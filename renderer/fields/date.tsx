import type { FieldUi } from './types.js';
import { isoToLocalInput, localInputToIso } from '../lib/format.js';
import { TextOpt } from './option-controls.js';

export const dateUi: FieldUi<'date'> = {
  label: 'Date',
  glyph: '◷',
  description: 'A date and time, shown in local time and stored in UTC.',
  defaults: () => ({ min: '', max: '' }),
  // datetime-local edits local time; the server stores ISO 8601 UTC.
  Input: (props) => (
    <div class="input-row">
      <input
        id={props.id}
        type="datetime-local"
        step="1"
        value={isoToLocalInput(props.value)}
        aria-invalid={props.error ? 'true' : undefined}
        onInput={(e) => props.onChange(localInputToIso(e.currentTarget.value))}
      />
      <button type="button" class="btn btn-small btn-ghost" onClick={() => props.onChange(new Date().toISOString())}>
        Now
      </button>
      <button type="button" class="btn btn-small btn-ghost" disabled={!props.value} onClick={() => props.onChange('')}>
        Clear
      </button>
    </div>
  ),
  Options: (props) => (
    <div class="opt-grid">
      <TextOpt id={`${props.idPrefix}-min`} type="datetime-local" label="Min date" value={isoToLocalInput(props.field.min)} error={props.error('min')} disabled={props.locked} onChange={(v) => props.update({ min: localInputToIso(v) })} />
      <TextOpt id={`${props.idPrefix}-max`} type="datetime-local" label="Max date" value={isoToLocalInput(props.field.max)} error={props.error('max')} disabled={props.locked} onChange={(v) => props.update({ max: localInputToIso(v) })} />
    </div>
  ),
};
