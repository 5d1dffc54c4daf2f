import type { FieldUi } from './types.js';

export const boolUi: FieldUi<'bool'> = {
  label: 'Bool',
  glyph: '✓',
  description: 'Yes or no. Required means it must be yes.',
  defaults: () => ({}),
  Input: (props) => (
    <label class="switch">
      <input id={props.id} type="checkbox" role="switch" checked={props.value === true} onChange={(e) => props.onChange(e.currentTarget.checked)} />
      <span class="switch-track" aria-hidden="true" />
      <span class="switch-label">{props.value === true ? 'True' : 'False'}</span>
    </label>
  ),
};
