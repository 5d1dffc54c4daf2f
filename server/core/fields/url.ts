// `url`: a string in URL format (the shape govalidator's IsURL accepts: http(s), ws(s), ftp, tcp, udp
// or no scheme at all), optionally limited to or excluding some hosts.
import type { FieldBase, UrlField } from '../../model/types.js';
import { TEXT_STORAGE } from './casts.js';
import { err, OptionReader, required, runeLength, sortKeys, unsupportedType } from './common.js';
import { domainAllowed, readDomains } from './domains.js';
import type { FieldSpec } from './spec.js';

const C = 'a-zA-Z0-9\\u00a1-\\uffff';
const LABEL = `[${C}](?:[${C}_-]*[${C}])?`;
const IPV4 = '(?:[1-9]\\d?|1\\d\\d|2[01]\\d|22[0-3]|24\\d|25[0-5])(?:\\.(?:1?\\d{1,2}|2[0-4]\\d|25[0-5])){2}\\.(?:[0-9]\\d?|1\\d\\d|2[0-4]\\d|25[0-5])';
const URL_RE = new RegExp(
  `^(?:(?:ftp|tcp|udp|wss?|https?)://)?(?:\\S+(?::\\S*)?@)?(?:${IPV4}|\\[[0-9a-fA-F:.]+\\]|(?:${LABEL}\\.)*${LABEL})\\.?(?::\\d{1,5})?(?:[/?#]\\S*)?$`,
);

export function isUrl(value: string): boolean {
  const length = runeLength(value);
  if (length <= 3 || length >= 2083 || value.startsWith('.')) return false;
  // Without a scheme or port the whole value is a path for Go's url.Parse: it must at least look like a host.
  if (!value.includes(':') && !value.split(/[/?#]/, 1)[0].includes('.')) return false;
  return URL_RE.test(value);
}

/** The host (with port) as Go's url.Parse reports it: empty for values without `://`. */
export function urlHost(value: string): string {
  const at = value.indexOf('://');
  if (at < 0) return '';
  const authority = value.slice(at + 3).split(/[/?#]/, 1)[0];
  return authority.slice(authority.lastIndexOf('@') + 1);
}

function define(input: Record<string, unknown>, base: FieldBase) {
  const r = new OptionReader(input);
  const field: UrlField = sortKeys({ ...base, type: 'url', ...readDomains(r) });
  return { field, errors: r.errors };
}

export const urlSpec: FieldSpec<'url'> = {
  type: 'url',
  ...TEXT_STORAGE,
  define,
  validate(value, field) {
    if (typeof value !== 'string') return unsupportedType();
    if (value === '') return field.required ? required() : null;
    if (!isUrl(value)) return err('validation_invalid_url', 'Must be a valid url.');
    return domainAllowed(urlHost(value), field) ? null : err('validation_url_domain_not_allowed', 'Url domain is not allowed.');
  },
};
