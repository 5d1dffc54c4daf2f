// What a rule means (semantics.md §1.10): null = superusers only, "" = everyone, an expression must
// hold for the record. Superusers bypass every collection rule.
import { onlySuperusers } from '../errors.js';
import { compileFilter } from '../rules/resolver.js';
import type { Collection, RequestInfo, RuleKey, SqlValue } from './types.js';
import { isSuperuser } from './types.js';

export interface Where {
  sql: string;
  params: SqlValue[];
}

export const TRUE_WHERE: Where = { sql: '1', params: [] };

/**
 * The SQL condition a rule adds for this caller over rows aliased `alias`, or throws the 403 of a
 * locked (null) rule.
 */
export function ruleWhere(
  collection: Collection,
  key: RuleKey,
  req: RequestInfo,
  lookup: (idOrName: string) => Collection | undefined,
  alias = 'r',
): Where {
  if (isSuperuser(req.auth)) return TRUE_WHERE;
  const rule = collection[key];
  if (rule === null || rule === undefined) throw onlySuperusers();
  if (rule.trim() === '') return TRUE_WHERE;
  return compileFilter(rule, { collection, alias, lookup, request: req, mode: 'rule' });
}

/** Like ruleWhere, but a locked rule yields null instead of throwing (expand skips such paths). */
export function ruleWhereOrNull(
  collection: Collection,
  key: RuleKey,
  req: RequestInfo,
  lookup: (idOrName: string) => Collection | undefined,
  alias = 'r',
): Where | null {
  if (!isSuperuser(req.auth) && (collection[key] === null || collection[key] === undefined)) return null;
  return ruleWhere(collection, key, req, lookup, alias);
}
