// PocketBase writes indexes as `CREATE INDEX` strings; Deskbase keeps them as objects of field ids.
// These two functions move between the forms with the grammar of PocketBase's tools/dbutils/index.go
// (ParseIndex and Index.Build), so a schema goes to PocketBase and back unchanged.

export interface ParsedIndex {
  unique: boolean;
  name: string;
  table: string;
  columns: { name: string; collate: string; sort: string }[];
  where: string;
}

const INDEX_RE = /create\s+(unique\s+)?\s*index\s*(if\s+not\s+exists\s+)?(\S*)\s+on\s+(\S*)\s*\(([\s\S]*)\)(?:\s*where\s+([\s\S]*))?/i;
const COLUMN_RE = /^([\s\S]+?)(?:\s+collate\s+(\w+))?(?:\s+(asc|desc))?$/i;
const TRIM = '`"\'[]\r\n\t\f\v ';

function trim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && TRIM.includes(s[a])) a++;
  while (b > a && TRIM.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

/** Splits at `sep` outside quotes and parentheses (PocketBase's tokenizer with one separator). */
function splitTop(text: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote !== '') {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (ch === '[') quote = ']';
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === sep && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** PocketBase's ParseIndex; null where it would give an invalid index (no name, table or column). */
export function parseIndexSql(sql: string): ParsedIndex | null {
  const m = INDEX_RE.exec(sql);
  if (!m) return null;
  const nameParts = splitTop(m[3], '.');
  const name = trim(nameParts[nameParts.length - 1] ?? '');
  const table = trim(m[4]);
  const columns: ParsedIndex['columns'] = [];
  for (const raw of splitTop(m[5], ',')) {
    const c = COLUMN_RE.exec(raw);
    if (!c) continue;
    const colName = trim(c[1]);
    if (colName !== '') columns.push({ name: colName, collate: (c[2] ?? '').trim(), sort: (c[3] ?? '').toUpperCase() });
  }
  if (name === '' || table === '' || columns.length === 0) return null;
  return { unique: (m[1] ?? '').trim() !== '', name, table, columns, where: (m[6] ?? '').trim() };
}

/**
 * The unique indexes PocketBase makes on every auth collection (`email`, `tokenKey`): Deskbase keeps
 * its own email index (unique, case-insensitive, when set) and has no token key, so they are not user
 * indexes here.
 */
export function isPocketBaseAuthIndex(parsed: ParsedIndex): boolean {
  return parsed.unique && parsed.columns.length === 1 && ['email', 'tokenkey'].includes(parsed.columns[0].name.toLowerCase());
}

/** What a parsed index has beyond plain columns (Deskbase's index objects cannot hold it): `WHERE`, `COLLATE NOCASE`, `DESC`. */
export function indexExtras(parsed: ParsedIndex): string[] {
  const extras = [parsed.where !== '' ? 'WHERE' : '', ...parsed.columns.map((c) => (c.collate !== '' ? `COLLATE ${c.collate}` : '')), ...parsed.columns.map((c) => (c.sort === 'DESC' ? 'DESC' : ''))];
  return [...new Set(extras.filter(Boolean))];
}

/** PocketBase's Index.Build for plain column indexes (the only kind Deskbase defines). */
export function buildIndexSql(index: { unique: boolean; name: string; table: string; columns: string[] }): string {
  const multi = index.columns.length > 1;
  const cols = index.columns.map((c) => `\`${c}\``).join(',\n  ');
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX \`${index.name}\` ON \`${index.table}\` (${multi ? `\n  ${cols}\n` : cols})`;
}
