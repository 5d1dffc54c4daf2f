// Pure helpers that turn record values into short readable text for tables, pickers and panels.
import type { Collection, Field, RecordModel } from '../api.js';

/** ISO datetime → local time text; '' for an empty value, the raw text when unparsable. */
export function formatDate(iso: unknown): string {
  if (typeof iso !== 'string' || iso === '') return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** ISO datetime → `datetime-local` input value (local time, seconds kept). */
export function isoToLocalInput(iso: unknown): string {
  const text = formatDate(iso);
  return text === '' || text === iso ? '' : text.replace(' ', 'T');
}

/** `datetime-local` value → ISO 8601 UTC, as the server stores datetimes; '' stays ''. */
export function localInputToIso(local: string): string {
  if (local === '') return '';
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
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
