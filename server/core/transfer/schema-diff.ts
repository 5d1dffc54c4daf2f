// What a schema import changes, collection by collection and field by field (the admin UI shows it
// before applying). Fields are matched by id, as the import itself matches them.
import { authOptionsOf, STORED_AUTH_OPTION_KEYS } from '../auth-options.js';
import type { Collection, Field } from '../../model/types.js';

export interface CollectionDiff {
  id: string;
  name: string;
  action: 'added' | 'changed' | 'removed' | 'unchanged';
  fields: { added: string[]; changed: string[]; removed: string[] };
  /** Other settings that differ: `name`, `listRule`, `indexes`, `identityFields`... */
  settings: string[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const SETTINGS = ['name', 'indexes', 'listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule', 'authRule', 'manageRule', 'identityFields'] as const;

function fieldDiff(before: Field[], after: Field[]): CollectionDiff['fields'] {
  const old = new Map(before.map((f) => [f.id, f]));
  const now = new Set(after.map((f) => f.id));
  return {
    added: after.filter((f) => !old.has(f.id)).map((f) => f.name),
    changed: after.filter((f) => old.has(f.id) && !same(old.get(f.id), f)).map((f) => f.name),
    removed: before.filter((f) => !now.has(f.id)).map((f) => f.name),
  };
}

export function diffCollections(pairs: { before: Collection | undefined; after: Collection }[], removed: Collection[]): CollectionDiff[] {
  const out: CollectionDiff[] = pairs.map(({ before, after }) => {
    if (!before) return { id: after.id, name: after.name, action: 'added', fields: { added: after.fields.map((f) => f.name), changed: [], removed: [] }, settings: [] };
    const fields = fieldDiff(before.fields, after.fields);
    const settings: string[] = SETTINGS.filter((k) => !same(before[k], after[k]));
    if (after.type === 'auth') {
      // options a data folder older than them lacks count as their defaults
      const [a, b] = [authOptionsOf(before), authOptionsOf(after)];
      settings.push(...STORED_AUTH_OPTION_KEYS.filter((k) => !same(a[k], b[k])));
    }
    const changed = settings.length > 0 || fields.added.length + fields.changed.length + fields.removed.length > 0;
    return { id: after.id, name: after.name, action: changed ? 'changed' : 'unchanged', fields, settings };
  });
  for (const c of removed) out.push({ id: c.id, name: c.name, action: 'removed', fields: { added: [], changed: [], removed: c.fields.map((f) => f.name) }, settings: [] });
  return out;
}
