// Identifiers (table, column, index names) enter SQL only through this helper, after an allow-list
// check: names are validated when collections are saved, this is the last line of defence.
const SAFE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function ident(name: string): string {
  if (!SAFE.test(name)) throw new Error(`unsafe SQL identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}
