// Pure helpers that turn record values into short readable text for tables, pickers and panels.
import type { Collection, Field, RecordModel } from '../api.js';

// Dates are shown and edited in UTC with the zone written out, because filters compare UTC text
// (`created >= "2025-01-01 00:00:00"`): what the table shows is what a filter matches. Numbers read with
// the reader's digit grouping ("1–30 of 10,000").

/** ISO datetime → `2025-03-04 05:06:07 UTC`; '' for an empty value, the raw text when unparsable. */
export function formatDate(iso: unknown): string {
  const text = utcText(iso);
  return text === null ? (typeof iso === 'string' ? iso : '') : `${text} UTC`;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, or null when `iso` is not a parsable date. */
function utcText(iso: unknown): string | null {
  if (typeof iso !== 'string' || iso === '') return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** ISO datetime → `datetime-local` input value, in UTC (seconds kept). */
export function isoToUtcInput(iso: unknown): string {
  return utcText(iso)?.replace(' ', 'T') ?? '';
}

/** `datetime-local` value read as UTC → ISO 8601, as the server stores datetimes; '' stays ''. */
export function utcInputToIso(value: string): string {
  if (value === '') return '';
  const d = new Date(`${value.length === 16 ? `${value}:00` : value}Z`);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

let numbers: Intl.NumberFormat | undefined;
/** 10000 → "10,000" in the reader's locale. */
export function formatCount(n: number): string {
  numbers ??= new Intl.NumberFormat(undefined, { maximumFractionDigits: 20 });
  return numbers.format(n);
}

/** A number field's value as stored (no grouping: numbers may be years, codes or ids). */
export function formatNumberValue(v: unknown): string {
  return typeof v === 'number' ? String(v) : '0';
}

/** Shortens text to `max` characters with an ellipsis. */
export function abbreviate(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** JSON value → compact one-line text. */
export function formatJson(value: unknown, max = 60): string {
  if (value === null || value === undefined) return '';
  return abbreviate(JSON.stringify(value) ?? '', max);
}

/**
 * The field that names a record in pickers and relation cells: the first presentable field, else a
 * name/title/email text-like field, else none (the id is used), as PocketBase's dashboard does.
 */
export function displayField(collection: Collection | undefined): Field | undefined {
  if (!collection) return undefined;
  const presentable = collection.fields.find((f) => f.presentable && f.type !== 'password');
  if (presentable) return presentable;
  for (const name of ['name', 'title', 'label', 'username', 'email']) {
    const f = collection.fields.find((x) => x.name === name && (x.type === 'text' || x.type === 'email'));
    if (f) return f;
  }
  return undefined;
}

/** A readable label for a record of `collection`. */
export function recordLabel(record: RecordModel, collection: Collection | undefined): string {
  const field = displayField(collection);
  if (field) {
    const v = record[field.name];
    const text = typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v);
    if (text !== '') return abbreviate(text, 40);
  }
  return record.id;
}

/** The text-like fields a relation picker can search in. */
export function searchableFields(collection: Collection | undefined): string[] {
  if (!collection) return ['id'];
  const names = collection.fields
    .filter((f) => (f.type === 'text' || f.type === 'email' || f.type === 'url' || f.type === 'editor') && !f.hidden)
    .map((f) => f.name);
  return names.includes('id') ? names : ['id', ...names];
}

/** A filter matching records whose text fields contain `q` (quotes escaped for the filter language). */
export function searchFilter(fields: string[], q: string): string {
  const term = q.trim();
  if (term === '') return '';
  // Only the quote itself can be escaped in the filter language; other backslashes stay literal, so a
  // trailing one (which would escape the closing quote) is dropped.
  const quoted = `"${term.replace(/\\+$/, '').replace(/"/g, '\\"')}"`;
  return fields.map((f) => `${f} ~ ${quoted}`).join(' || ');
}

/**
 * Is `text` a filter expression, or words to search for? As PocketBase's dashboard decides: any
 * comparison sign makes it an expression; anything else (`Ada Lovelace`, `42`) is a search.
 */
export function isFilterExpression(text: string): boolean {
  return /[=~<>]/.test(text);
}

/**
 * What the records filter box sends: an expression as typed; plain words as a search across the
 * collection's text fields (quotes around the words are taken off first: `"Ada"` searches Ada).
 */
export function filterOfBox(text: string, collection: Collection | undefined): string {
  const t = text.trim();
  if (t === '' || isFilterExpression(t)) return t;
  return searchFilter(searchableFields(collection), t.replace(/^["'`]|["'`]$/g, ''));
}

/** Fields hidden from record tables and forms: the auth token key is internal. */
export function isInternalField(field: Field, collection: Collection): boolean {
  return collection.type === 'auth' && field.name === 'tokenKey';
}

/** 512 B, 12.3 KB, 4.5 MB: sizes people read at a glance (powers of 1024, as file managers show). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n / 1024;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[i]}`;
}
