// `email`: a string in e-mail format (the same shape govalidator's IsEmail accepts), optionally limited
// to or excluding some domains.
import type { EmailField, FieldBase } from '../types.js';
import { TEXT_STORAGE } from './casts.js';
import { err, OptionReader, required, sortKeys, unsupportedType } from './common.js';
import { domainAllowed, readDomains } from './domains.js';
import type { FieldSpec } from './spec.js';

// Unicode letters beyond ASCII that govalidator allows in both parts.
const U = '\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF';
const ATOM = `[a-zA-Z0-9!#$%&'*+\\-/=?^_\`{|}~${U}]+`;
const QUOTED = `"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e${U}]|\\\\[\\x20-\\x7e])*"`;
const LABEL = `[a-zA-Z0-9${U}](?:[a-zA-Z0-9\\-._~${U}]*[a-zA-Z0-9${U}])?`;
const TLD = `[a-zA-Z${U}](?:[a-zA-Z0-9\\-._~${U}]*[a-zA-Z${U}])?`;
const EMAIL_RE = new RegExp(`^(?:${ATOM}(?:\\.${ATOM})*|${QUOTED})@(?:${LABEL}\\.)+${TLD}\\.?$`);

export function isEmail(value: string): boolean {
  return EMAIL_RE.test(value);
}

function define(input: Record<string, unknown>, base: FieldBase) {
  const r = new OptionReader(input);
  const field: EmailField = sortKeys({ ...base, type: 'email', ...readDomains(r) });
  return { field, errors: r.errors };
}

export const emailSpec: FieldSpec<'email'> = {
  type: 'email',
  ...TEXT_STORAGE,
  define,
  validate(value, field) {
    if (typeof value !== 'string') return unsupportedType();
    if (value === '') return field.required ? required() : null;
    if (!isEmail(value)) return err('validation_is_email', 'Must be a valid email address.');
    const domain = value.slice(value.lastIndexOf('@') + 1);
    return domainAllowed(domain, field) ? null : err('validation_email_domain_not_allowed', 'Email domain is not allowed.');
  },
};
