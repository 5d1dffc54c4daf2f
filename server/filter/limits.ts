// Limits of the filter language, named so callers and tests share them. PocketBase's values where it has
// them (3500 characters for a client filter, 200 expressions, 6 relation hops, 8 sort fields of at most
// 255 characters); the nesting and function limits are ours, so hostile input fails fast instead of
// exhausting the stack.

/** Longest client `filter` (and `sort`) parameter, in characters. Rules and server filters have no limit. */
export const MAX_FILTER_LENGTH = 3500;
/** Most `left op right` expressions in one filter or rule. */
export const MAX_EXPRESSIONS = 200;
/** Deepest parenthesised group nesting. */
export const MAX_NESTING_DEPTH = 50;
/** Most relation hops (relations, back-relations) in one identifier. */
export const MAX_RELATION_DEPTH = 6;
/** Most nested function calls, the outer one included (`strftime(strftime(...))`). */
export const MAX_FUNCTION_DEPTH = 3;
/** Most arguments of one function call. */
export const MAX_FUNCTION_ARGS = 10;
/** Most comma-separated sort fields. */
export const MAX_SORT_FIELDS = 8;
/** Longest single sort field, in characters. */
export const MAX_SORT_FIELD_LENGTH = 255;
/**
 * Longest `~` pattern, in UTF-8 bytes: SQLite's own limit (SQLITE_MAX_LIKE_PATTERN_LENGTH), past which
 * its LIKE fails the statement. Guarded SQL (what the server runs) sends longer patterns, bound or
 * read from a column, to the JavaScript LIKE (guard.ts), which has no such limit.
 */
export const MAX_LIKE_PATTERN_BYTES = 50_000;
