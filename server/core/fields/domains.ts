// `exceptDomains` / `onlyDomains` of email and url fields: mutually exclusive lists of domains.
import type { ErrorData } from '../../errors.js';
import { err, mustBeBlank, type OptionReader } from './common.js';

// ozzo-validation's is.Domain (lower-case labels, a letter TLD or an IDN `xn--` TLD).
const DOMAIN_RE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{1,63}|xn--[a-z0-9]{1,59})$/;

export function isDomain(value: string): boolean {
  return value.length <= 255 && DOMAIN_RE.test(value);
}

/** Reads both lists; a list is checked item by item (errors keyed by index) unless the other is set. */
export function readDomains(r: OptionReader): { exceptDomains: string[]; onlyDomains: string[] } {
  const exceptDomains = r.stringList('exceptDomains');
  const onlyDomains = r.stringList('onlyDomains');
  checkList(r, 'exceptDomains', exceptDomains, onlyDomains.length > 0);
  checkList(r, 'onlyDomains', onlyDomains, exceptDomains.length > 0);
  return { exceptDomains, onlyDomains };
}

function checkList(r: OptionReader, key: string, list: string[], otherSet: boolean): void {
  if (otherSet && list.length > 0) {
    r.fail(key, mustBeBlank());
    return;
  }
  const errors: ErrorData = {};
  list.forEach((d, i) => {
    if (!isDomain(d)) errors[String(i)] = err('validation_is_domain', 'Must be a valid domain.');
  });
  if (Object.keys(errors).length > 0) r.fail(key, errors);
}

/** Whether `domain` passes the field's lists (exact, case-sensitive comparison, as in PocketBase). */
export function domainAllowed(domain: string, field: { exceptDomains: string[]; onlyDomains: string[] }): boolean {
  if (field.onlyDomains.length > 0 && !field.onlyDomains.includes(domain)) return false;
  return !(field.exceptDomains.length > 0 && field.exceptDomains.includes(domain));
}
