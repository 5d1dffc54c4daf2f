import type { FieldUi } from './types.js';
import { CheckOpt, NumberOpt } from './option-controls.js';

export const numberUi: FieldUi<'number'> = {
  label: 'Number',
  glyph: '#',
  description: 'Integers or decimals, with optional bounds.',
  defaults: () => ({ min: null, max: null, onlyInt: false }),
  Input: (props) => (
    <input
      id={props.id}
      type="number"
      step={props.field.onlyInt ? '1' : 'any'}
      min={props.field.min ?? undefined}
      max={props.field.max ?? undefined}
      value={typeof props.value === 'number' ? String(props.value) : ''}
      aria-invalid={props.error ? 'true' : undefined}
      // An empty box is the zero value, as the server stores it (PocketBase: numbers default to 0).
      onInput={(e) => props.onChange(e.currentTarget.value === '' ? 0 : Number(e.currentTarget.value))}
    />
  ),
  Options: (props) => (
    <div class="opt-grid">
      <NumberOpt id={`${props.idPrefix}-min`} label="Min" value={props.field.min} error={props.error('min')} disabled={props.locked} onChange={(v) => props.update({ min: v })} />
      <NumberOpt id={`${props.idPrefix}-max`} label="Max" value={props.field.max} error={props.error('max')} disabled={props.locked} onChange={(v) => props.update({ max: v })} />
      <CheckOpt id={`${props.idPrefix}-onlyInt`} label="Integers only" checked={props.field.onlyInt} disabled={props.locked} onChange={(v) => props.update({ onlyInt: v })} />
    </div>
  ),
};
