// Selected records as a file, made in the browser from what the table already loaded: JSON (the API's
// record objects, without `expand`) or CSV (one column per field, multi-values as JSON text).
import type { Field, RecordModel } from '../api.js';

export type ExportFormat = 'csv' | 'json';

export function recordsToJson(records: RecordModel[]): string {
  return JSON.stringify(
    records.map(({ expand: _expand, ...rest }) => rest),
    null,
    2,
  );
}

/**
 * A text a spreadsheet would run as a formula (`=HYPERLINK(…)`, `+`, `-`, `@`, tab, CR) gets a leading
 * `'`, as OWASP's CSV-injection advice says: the file is opened by people, not only by programs.
 */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? '';
}

function quoted(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 CSV with a header row of field names and CRLF line ends. */
export function recordsToCsv(records: RecordModel[], fields: Field[]): string {
  const lines = [fields.map((f) => quoted(f.name)).join(',')];
  for (const r of records) lines.push(fields.map((f) => quoted(cellText(r[f.name]))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export function exportFile(records: RecordModel[], fields: Field[], format: ExportFormat, collection: string, now = new Date()): { blob: Blob; filename: string } {
  const stamp = now.toISOString().slice(0, 19).replace(/[:T]/g, '-');
  const filename = `${collection}-${records.length}-records-${stamp}.${format}`;
  const blob =
    format === 'csv'
      ? new Blob(['\uFEFF', recordsToCsv(records, fields)], { type: 'text/csv;charset=utf-8' })
      : new Blob([recordsToJson(records)], { type: 'application/json' });
  return { blob, filename };
}
