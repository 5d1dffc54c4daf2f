import type { FieldUi } from './types.js';
import { isoToUtcInput, utcInputToIso } from '../lib/format.js';
import { TextOpt } from './option-controls.js';

export const dateUi: FieldUi<'date'> = {
  label: 'Date',
  glyph: '◷',
  description: 'A date and time, shown, edited and stored in UTC (as filters compare it).',
  defaults: () => ({ min: '', max: '' }),
  // The input edits UTC, the zone the table shows and filters compare; the server stores ISO 8601 UTC.
  Input: (props) => (
    <div class="input-row">
      <input
        id={props.id}
        type="datetime-local"
        step="1"
        value={isoToUtcInput(props.value)}
        aria-invalid={props.error ? 'true' : undefined}
        onInput={(e) => props.onChange(utcInputToIso(e.currentTarget.value))}
      />
      <span class="muted input-zone">UTC</span>
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
      <TextOpt id={`${props.idPrefix}-min`} type="datetime-local" label="Min date" value={isoToUtcInput(props.field.min)} error={props.error('min')} disabled={props.locked} onChange={(v) => props.update({ min: utcInputToIso(v) })} />
      <TextOpt id={`${props.idPrefix}-max`} type="datetime-local" label="Max date" value={isoToUtcInput(props.field.max)} error={props.error('max')} disabled={props.locked} onChange={(v) => props.update({ max: utcInputToIso(v) })} />
    </div>
  ),
};
