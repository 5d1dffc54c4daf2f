// SQL fragments: text plus the parameters it binds, in order. Fragments are only built with the `sql`
// tag, whose literal parts are the compiler's own SQL and whose holes must be fragments, so a value can
// reach SQL text only through `param()` and an identifier only through `ident()` (after the caller's
// allow-list check).
import type { SqlValue } from '../core/types.js';

export interface Frag {
  readonly text: string;
  readonly params: readonly SqlValue[];
}

export function sql(strings: TemplateStringsArray, ...holes: Frag[]): Frag {
  let text = strings[0];
  const params: SqlValue[] = [];
  for (let i = 0; i < holes.length; i++) {
    text += holes[i].text + strings[i + 1];
    for (const p of holes[i].params) params.push(p);
  }
  return { text, params };
}

export function param(value: SqlValue): Frag {
  return { text: '?', params: [value] };
}

export const EMPTY_TEXT: Frag = { text: "''", params: [] };
export const NULL: Frag = { text: 'NULL', params: [] };
export const TRUE: Frag = { text: '1', params: [] };
export const NOTHING: Frag = { text: '', params: [] };

/** The one identifier quoting helper: `"name"`, inner quotes doubled. */
export function ident(name: string): Frag {
  return { text: `"${name.replaceAll('"', '""')}"`, params: [] };
}

const ALIAS = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A table alias: ours (`_f3`) or the caller's (`r`); checked, not quoted, so the SQL stays readable. */
export function alias(name: string): Frag {
  if (!ALIAS.test(name)) throw new Error(`invalid SQL alias ${JSON.stringify(name)}`);
  return { text: name, params: [] };
}

/** `alias."column"` */
export function column(tableAlias: string, name: string): Frag {
  return sql`${alias(tableAlias)}.${ident(name)}`;
}

export function joinFrags(frags: readonly Frag[], separator: string): Frag {
  const params: SqlValue[] = [];
  for (const f of frags) for (const p of f.params) params.push(p);
  return { text: frags.map((f) => f.text).join(separator), params };
}

/**
 * A stored multi-valued column (or any value) as a JSON array for json_each / json_array_length, the way
 * PocketBase reads it: a JSON array as is, '' or NULL as [], any other value as a one-item array.
 */
export function jsonArray(value: Frag): Frag {
  // Nested CASE, not AND: json_type() throws on invalid JSON and SQLite does not promise short-circuits.
  return sql`(CASE WHEN json_valid(${value}) THEN (CASE WHEN json_type(${value}) = 'array' THEN ${value} ELSE json_array(${value}) END) WHEN ${value} = '' OR ${value} IS NULL THEN '[]' ELSE json_array(${value}) END)`;
}

/** A JSON column read as JSON even when the stored text is not valid JSON (then it is one string). */
export function jsonValue(value: Frag): Frag {
  return sql`(CASE WHEN json_valid(${value}) THEN ${value} ELSE json_quote(${value}) END)`;
}
