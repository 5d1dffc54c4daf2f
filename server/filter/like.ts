// The `~` / `!~` pattern of a bound value, as PocketBase builds it: a value with no unescaped `%` is a
// plain "contains" search (its `\`, `%` and `_` are escaped and it is wrapped in `%...%`); a value that
// has an unescaped `%` is taken as the caller's own LIKE pattern. Used with `ESCAPE '\'`.

const SPECIAL = new Set(['\\', '%', '_']);

export function hasUnescapedPercent(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '\\') i++;
    else if (value[i] === '%') return true;
  }
  return false;
}

/** Escapes `\`, `%` and `_` unless already escaped (`a\_b` stays `a\_b`, `a_b` becomes `a\_b`). */
export function escapeLike(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\\' && i + 1 < value.length && SPECIAL.has(value[i + 1])) {
      out += c + value[i + 1];
      i++;
    } else {
      out += SPECIAL.has(c) ? `\\${c}` : c;
    }
  }
  return out;
}

export function likePattern(value: string): string {
  return hasUnescapedPercent(value) ? value : `%${escapeLike(value)}%`;
}
