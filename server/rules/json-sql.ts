// How stored JSON-ish columns are read in SQL, following the storage conventions (core/fields): the
// domain's knowledge of what a stored multi-valued or json column may hold.
import { sql, type Frag } from '../filter/sql.js';

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
