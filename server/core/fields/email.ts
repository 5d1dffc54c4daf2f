// `email`: a string in e-mail format (the same shape govalidator's IsEmail accepts), optionally limited
// to or excluding some domains.
import type { FieldError } from '../../errors.js';
import type { EmailField, FieldBase } from '../../model/types.js';
import { TEXT_STORAGE } from './casts.js';
import { err, OptionReader, required, sortKeys, unsupportedType } from './common.js';
import { domainAllowed, readDomains } from './domains.js';
import type { FieldSpec } from './spec.js';

// Unicode letters beyond ASCII that govalidator allows in both parts.
const U = '\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF';
const ATOM = `[a-zA-Z0-9!#$%&'*+\\-/=?^_\`{|}~${U}]+`;
// The local part: dot-separated atoms or a quoted string. Atoms exclude `.`, and the quoted string's two
// alternatives start with different characters, so each step has one way forward: linear.
const LOCAL_RE = new RegExp(`^(?:${ATOM}(?:\\.${ATOM})*|"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e${U}]|\\\\[\\x20-\\x7e])*")$`);
const DOMAIN_CHARS_RE = new RegExp(`^[a-zA-Z0-9\\-._~${U}]+$`);
const ALNUM_RE = new RegExp(`^[a-zA-Z0-9${U}]$`);
const LETTER_RE = new RegExp(`^[a-zA-Z${U}]$`);

/** RFC 5321's longest deliverable address; checked before anything else looks at the value. */
export const MAX_EMAIL_LENGTH = 254;

/**
 * govalidator's IsEmail, `^(ATOM(\.ATOM)*|QUOTED)@(LABEL\.)+TLD\.?$`, in linear time. Labels may hold
 * dots, so `(LABEL\.)+` is the same language as `LABEL\.` (two labels joined by a dot are one label),
 * and the domain matches when all its characters are allowed and some dot has a letter or digit before
 * it and a letter after it, with the TLD ending in a letter. The regular expression itself backtracked
 * exponentially on `x@a.a.a.…!` (each dot could end a label or sit inside one).
 */
export function isEmail(value: string): boolean {
  if (value.length > MAX_EMAIL_LENGTH) return false;
  const at = value.lastIndexOf('@'); // the domain has no `@`; a quoted local part may
  if (at <= 0 || !LOCAL_RE.test(value.slice(0, at))) return false;
  return isEmailDomain(value.slice(at + 1));
}

function isEmailDomain(domain: string): boolean {
  const d = domain.endsWith('.') ? domain.slice(0, -1) : domain; // the optional final `\.?`
  if (!DOMAIN_CHARS_RE.test(d) || !ALNUM_RE.test(d[0]) || !LETTER_RE.test(d[d.length - 1])) return false;
  for (let dot = d.indexOf('.', 1); dot !== -1 && dot < d.length - 1; dot = d.indexOf('.', dot + 1)) {
    if (ALNUM_RE.test(d[dot - 1]) && LETTER_RE.test(d[dot + 1])) return true;
  }
  return false;
}

/** An e-mail value against its field (format, then the field's domain lists); setup checks through it too. */
export function validateEmail(value: string, field: EmailField): FieldError | null {
  if (value === '') return field.required ? required() : null;
  if (!isEmail(value)) return err('validation_is_email', 'Must be a valid email address.');
  const domain = value.slice(value.lastIndexOf('@') + 1);
  return domainAllowed(domain, field) ? null : err('validation_email_domain_not_allowed', 'Email domain is not allowed.');
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
  validate: (value, field) => (typeof value === 'string' ? validateEmail(value, field) : unsupportedType()),
};
