// Rules an import opens, flagged before anyone applies it (the diff only says a rule changed). Whether
// one expression admits more than another cannot be decided in general, so the flags are by shape:
// a rule that was superusers only (null) and no longer is, a rule that becomes "" (anyone), and, on
// auth collections, where a rule decides who may list, read or change accounts, any change other than
// to null. Each flag is a transfer note with `warning` set (the CLI and the admin UI ask before
// applying an import that has one).
import { RULE_KEYS, type Collection, type RuleKey } from '../../model/types.js';
import type { Notes } from './transfer-notes.js';

const show = (rule: string | null | undefined) => (rule === null || rule === undefined ? 'null (superusers only)' : rule === '' ? '"" (anyone)' : JSON.stringify(rule));

/** Why the change of `key` from `before` to `after` opens the rule, or null. */
function opening(c: Collection, key: RuleKey, before: string | null, after: string | null): string | null {
  if (before === after || after === null) return null;
  if (before === null) return 'opens a rule that was for superusers only';
  if (after === '') return 'opens the rule to anyone';
  if (c.type === 'auth') return 'changes who may act on accounts; check it is not more open';
  return null;
}

export function noteOpenedRules(before: Collection, after: Collection, notes: Notes): void {
  for (const key of RULE_KEYS) {
    if (after.type !== 'auth' && (key === 'authRule' || key === 'manageRule')) continue;
    const was = (before[key] ?? null) as string | null;
    const now = (after[key] ?? null) as string | null;
    const why = opening(after, key, was, now);
    if (why !== null) notes.add(after.name, key, `The import ${why}: ${show(was)} becomes ${show(now)}.`, true);
  }
}
