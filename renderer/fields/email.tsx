import type { FieldUi } from './types.js';
import { DomainOptions } from './domains.js';

export const emailUi: FieldUi<'email'> = {
  label: 'Email',
  glyph: '@',
  description: 'An email address, optionally limited to domains.',
  defaults: () => ({ exceptDomains: [], onlyDomains: [] }),
  Input: (props) => (
    <input id={props.id} type="email" autocomplete="off" value={typeof props.value === 'string' ? props.value : ''} aria-invalid={props.error ? 'true' : undefined} onInput={(e) => props.onChange(e.currentTarget.value)} />
  ),
  Options: (props) => (
    <DomainOptions idPrefix={props.idPrefix} exceptDomains={props.field.exceptDomains ?? []} onlyDomains={props.field.onlyDomains ?? []} locked={props.locked} error={props.error} update={props.update} />
  ),
};
