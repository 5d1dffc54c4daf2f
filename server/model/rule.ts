// What a stored API rule says, as PocketBase reads it: null (or no rule at all) locks the action to
// superusers, a blank rule lets everyone through with no condition, any other text is a filter each
// record must pass. Superusers bypass every collection rule; where that applies is the caller's: core's
// rule checks (core/access.ts), a superuser's filter compiled unrestricted (rules/).

export type RuleText = string | null | undefined;

/** Only superusers: the rule is null (or absent). */
export function isLocked(rule: RuleText): rule is null | undefined {
  return rule === null || rule === undefined;
}

/** Everyone, no condition: the rule is blank. */
export function isOpen(rule: RuleText): boolean {
  return typeof rule === 'string' && rule.trim() === '';
}
