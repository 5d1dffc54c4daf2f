import type { FieldUi } from './types.js';
import { NumberOpt } from './option-controls.js';

export const editorUi: FieldUi<'editor'> = {
  label: 'Rich text',
  glyph: '¶',
  description: 'Long text or HTML content.',
  defaults: () => ({ maxSize: 0, convertURLs: false }),
  Input: (props) => (
    <textarea
      id={props.id}
      rows={6}
      value={typeof props.value === 'string' ? props.value : ''}
      aria-invalid={props.error ? 'true' : undefined}
      onInput={(e) => props.onChange(e.currentTarget.value)}
    />
  ),
  Options: (props) => (
    <div class="opt-grid">
      <NumberOpt id={`${props.idPrefix}-maxSize`} label="Max size (bytes)" hint="0 means 5 MiB" value={props.field.maxSize} empty={0} step="1" error={props.error('maxSize')} disabled={props.locked} onChange={(v) => props.update({ maxSize: v ?? 0 })} />
    </div>
  ),
};
