import type { FieldUi } from './types.js';
import { autoGrow } from '../lib/auto-grow.js';
import { NumberOpt, TextOpt } from './option-controls.js';

export const textUi: FieldUi<'text'> = {
  label: 'Plain text',
  glyph: 'T',
  description: 'Short text: names, titles, slugs.',
  defaults: () => ({ min: 0, max: 0, pattern: '', autogeneratePattern: '', primaryKey: false }),
  // An auto-growing textarea, one line to start (long text reads whole; Ctrl+Enter saves the record).
  Input: (props) => (
    <textarea
      id={props.id}
      ref={autoGrow}
      class="auto-grow"
      rows={1}
      value={typeof props.value === 'string' ? props.value : ''}
      placeholder={props.field.autogeneratePattern && props.ctx.isNew ? 'Leave empty to autogenerate' : ''}
      maxLength={props.field.max > 0 ? props.field.max : undefined}
      aria-invalid={props.error ? 'true' : undefined}
      onInput={(e) => props.onChange(e.currentTarget.value)}
    />
  ),
  Options: (props) => (
    <div class="opt-grid">
      <NumberOpt id={`${props.idPrefix}-min`} label="Min length" value={props.field.min} empty={0} step="1" error={props.error('min')} disabled={props.locked} onChange={(v) => props.update({ min: v ?? 0 })} />
      <NumberOpt id={`${props.idPrefix}-max`} label="Max length" hint="0 means up to 5000" value={props.field.max} empty={0} step="1" error={props.error('max')} disabled={props.locked} onChange={(v) => props.update({ max: v ?? 0 })} />
      <TextOpt id={`${props.idPrefix}-pattern`} label="Regex pattern" placeholder="e.g. ^[a-z0-9-]+$" value={props.field.pattern} error={props.error('pattern')} disabled={props.locked} onChange={(v) => props.update({ pattern: v })} />
      <TextOpt id={`${props.idPrefix}-autogen`} label="Autogenerate pattern" placeholder="e.g. [a-z0-9]{8}" hint="Fills an empty value on create" value={props.field.autogeneratePattern} error={props.error('autogeneratePattern')} disabled={props.locked} onChange={(v) => props.update({ autogeneratePattern: v })} />
    </div>
  ),
};
