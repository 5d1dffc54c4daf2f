// How text enters SQL, for the whole server. Fragments are text plus the parameters it binds, in order,
// built only with the `sql` tag, whose literal parts are our own SQL and whose holes must be fragments:
// a value reaches SQL text only through `param()`, an identifier only through `ident()`, which refuses
// anything outside its allow-list (names are validated when collections are saved; this is the last
// line of defence), and a table alias only through `alias()`.

/** A value SQLite binds: what every compiled filter, rule and query passes as parameters. */
export type SqlValue = string | number | null;

export interface Frag {
  readonly text: string;
  readonly params: readonly SqlValue[];
}

/** A condition or ORDER BY body ready to splice into a statement, with its bound values in order. */
export interface CompiledSql {
  sql: string;
  params: SqlValue[];
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
export const ZERO: Frag = { text: '0', params: [] };

/**
 * The allow-list of quoted identifiers: PocketBase's field name rule (`^\w+$`, so `1st` is a valid
 * field name) and the collection and index name rules all fit it, and inside double quotes any such
 * name is a plain SQLite identifier.
 */
const SAFE_NAME = /^\w+$/;
/** Aliases are written unquoted, so they must also not start with a digit. */
const SAFE_ALIAS = /^[A-Za-z_]\w*$/;

/** The one identifier quoting helper: `"name"` for a table, column or index name on the allow-list. */
export function ident(name: string): string {
  if (!SAFE_NAME.test(name)) throw new Error(`unsafe SQL identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** A table (or any quoted identifier) as a fragment. */
export function table(name: string): Frag {
  return { text: ident(name), params: [] };
}

/** A table alias: ours (`_f3`) or the caller's (`r`); checked, not quoted, so the SQL stays readable. */
export function alias(name: string): Frag {
  if (!SAFE_ALIAS.test(name)) throw new Error(`invalid SQL alias ${JSON.stringify(name)}`);
  return { text: name, params: [] };
}

/** `alias."column"` */
export function column(tableAlias: string, name: string): Frag {
  return sql`${alias(tableAlias)}.${table(name)}`;
}

export function joinFrags(frags: readonly Frag[], separator: string): Frag {
  const params: SqlValue[] = [];
  for (const f of frags) for (const p of f.params) params.push(p);
  return { text: frags.map((f) => f.text).join(separator), params };
}

export function compiled(frag: Frag): CompiledSql {
  return { sql: frag.text, params: [...frag.params] };
}
