// Rules checked for a caller: what a rule says (null = superusers only, "" = everyone, an expression
// must hold for the record: model/rule.ts), with the superuser bypass, which is decided here. Every
// stored rule the server checks is compiled here; one that no longer compiles (a field it names was
// dropped) fails closed with a 400.
import { onlySuperusers } from '../errors.js';
import type { CompiledSql } from '../filter/sql.js';
import { compileFilter } from '../rules/compile.js';
import { compiling } from './filter-errors.js';
import type { RuleInput } from './request-context.js';

/** The compile option naming the caller's dialect (none: SQLite, the compiler's default). */
export function compileDialect(ctx: Pick<RuleInput, 'dialect'>): { dialect?: NonNullable<RuleInput['dialect']> } {
  return ctx.dialect === undefined ? {} : { dialect: ctx.dialect };
}
import type { Collection, RuleKey } from '../model/types.js';
import { isSuperuser } from '../model/types.js';
import { isLocked, isOpen } from '../model/rule.js';

/** What ruleWhere answers when the rule asks nothing of this caller (a superuser, or an empty rule). */
export const MATCH_ALL: CompiledSql = { sql: '1', params: [] };
const PG_MATCH_ALL: CompiledSql = { sql: 'TRUE', params: [] };

/** What ruleWhere answers when the rule asks nothing of the caller, in the caller's dialect (SQLite: MATCH_ALL itself). */
export function matchAll(ctx: Pick<RuleInput, 'dialect'>): CompiledSql {
  return ctx.dialect === undefined || ctx.dialect.true.text === MATCH_ALL.sql ? MATCH_ALL : PG_MATCH_ALL;
}

/** Whether a condition holds for every row (MATCH_ALL in any dialect). */
export function matchesAll(w: CompiledSql): boolean {
  return w === MATCH_ALL || w === PG_MATCH_ALL || (w.params.length === 0 && (w.sql === MATCH_ALL.sql || w.sql === PG_MATCH_ALL.sql));
}

/** A stored rule expression (authRule, manageRule...) over rows aliased `alias`, as this caller sees it. */
export function ruleSql(rule: string, collection: Collection, ctx: RuleInput, alias = 'r'): CompiledSql {
  return compiling(() => compileFilter(rule, { collection, alias, lookup: ctx.lookup, request: ctx.request, mode: 'rule', guard: true, ...compileDialect(ctx) }));
}

/**
 * The SQL condition a rule adds for this caller over rows aliased `alias`, or throws the 403 of a
 * locked (null) rule.
 */
export function ruleWhere(collection: Collection, key: RuleKey, ctx: RuleInput, alias = 'r'): CompiledSql {
  if (isSuperuser(ctx.request.auth)) return matchAll(ctx);
  const rule = collection[key];
  if (isLocked(rule)) throw onlySuperusers();
  if (isOpen(rule)) return matchAll(ctx);
  return ruleSql(rule, collection, ctx, alias);
}

/** The 403 of a rule locked to superusers (null) for anyone else, before a write does any other work. */
export function refuseIfLocked(collection: Collection, key: RuleKey, superuser: boolean): void {
  if (!superuser && isLocked(collection[key])) throw onlySuperusers();
}

/** Like ruleWhere, but a locked rule yields null instead of throwing (expand skips such paths). */
export function ruleWhereOrNull(collection: Collection, key: RuleKey, ctx: RuleInput, alias = 'r'): CompiledSql | null {
  if (!isSuperuser(ctx.request.auth) && isLocked(collection[key])) return null;
  return ruleWhere(collection, key, ctx, alias);
}
