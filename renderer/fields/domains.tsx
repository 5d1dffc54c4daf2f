// Options shared by email and url: a domain allow-list or deny-list (mutually exclusive).
import type { JSX } from 'solid-js';
import { ListOpt } from './option-controls.js';

export function DomainOptions(props: {
  idPrefix: string;
  exceptDomains: string[];
  onlyDomains: string[];
  locked: boolean;
  error(prop: string): string | undefined;
  update(patch: { exceptDomains?: string[]; onlyDomains?: string[] }): void;
}): JSX.Element {
  return (
    <div class="opt-grid">
      <ListOpt id={`${props.idPrefix}-except`} label="Except domains" placeholder="spam.com, example.org" hint="Comma separated" value={props.exceptDomains} error={props.error('exceptDomains')} disabled={props.locked || props.onlyDomains.length > 0} onChange={(v) => props.update({ exceptDomains: v })} />
      <ListOpt id={`${props.idPrefix}-only`} label="Only domains" placeholder="company.com" hint="Comma separated" value={props.onlyDomains} error={props.error('onlyDomains')} disabled={props.locked || props.exceptDomains.length > 0} onChange={(v) => props.update({ onlyDomains: v })} />
    </div>
  );
}
