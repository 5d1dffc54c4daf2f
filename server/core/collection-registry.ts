// The collections, kept in memory and mirrored in `_collections`. Lookups by id or by name (names
// are matched case-insensitively, as PocketBase does).
// Loading checks each stored definition (definitionProblem) so that a malformed one is a clear error
// naming it, at start-up or when a restore's candidate database is checked before it is swapped in
// (core/backups.ts loads the candidate through this same code), never a TypeError later.
import { isSafeSegment } from '../files/paths.js';
import { ident } from '../filter/sql.js';
import type { ReadDb } from '../store/db.js';
import { isRecord } from '../json-object.js';
import { resolveFieldType } from './fields/base.js';
import { RULE_KEYS, type Collection } from '../model/types.js';

const safeIdent = (name: unknown): boolean => {
  if (typeof name !== 'string') return false;
  try {
    ident(name);
    return true;
  } catch {
    return false;
  }
};

/** Why a stored collection definition cannot be loaded, or null: the shape every part of the server relies on. */
export function definitionProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'not an object';
  if (typeof value.id !== 'string' || !isSafeSegment(value.id)) return 'its id is missing or not a plain name';
  if (!safeIdent(value.name)) return 'its name is missing or not a plain identifier';
  if (typeof value.type !== 'string') return 'its type is missing';
  if (!Array.isArray(value.fields)) return 'it has no fields list';
  const names = new Set<string>();
  for (const f of value.fields) {
    if (!isRecord(f) || typeof f.id !== 'string' || !safeIdent(f.name)) return 'a field has no id or no plain name';
    if (resolveFieldType(f.type) === null) return `field "${String(f.name)}" has an unknown type`;
    if (names.has(String(f.name).toLowerCase())) return `field "${String(f.name)}" is listed twice`;
    names.add(String(f.name).toLowerCase());
  }
  if (!names.has('id')) return 'it has no id field';
  if (!Array.isArray(value.indexes) || !value.indexes.every((i) => isRecord(i) && Array.isArray(i.fields))) return 'its indexes are not a list of indexes';
  for (const key of RULE_KEYS) if (value[key] !== undefined && value[key] !== null && typeof value[key] !== 'string') return `${key} is neither null nor a text`;
  return null;
}

export class Registry {
  private byId = new Map<string, Collection>();
  private byName = new Map<string, Collection>();

  /** Reads every definition of `_collections`; throws naming the first that cannot be loaded. */
  async load(db: ReadDb): Promise<void> {
    const loaded: Collection[] = [];
    for (const row of await db.all<{ id: unknown; data: unknown }>('SELECT "id", "data" FROM "_collections"')) {
      let value: unknown;
      try {
        value = JSON.parse(String(row.data));
      } catch {
        value = undefined;
      }
      const problem = value === undefined ? 'not JSON' : definitionProblem(value);
      if (problem !== null) throw new Error(`the definition of collection ${JSON.stringify(String(row.id).slice(0, 60))} in _collections cannot be loaded: ${problem}`);
      loaded.push(value as Collection);
    }
    this.byId.clear();
    this.byName.clear();
    for (const c of loaded) this.put(c);
  }

  get(idOrName: string): Collection | undefined {
    return this.byId.get(idOrName) ?? this.byName.get(idOrName.toLowerCase());
  }

  all(): Collection[] {
    return [...this.byId.values()];
  }

  put(collection: Collection): void {
    const old = this.byId.get(collection.id);
    if (old) this.byName.delete(old.name.toLowerCase());
    this.byId.set(collection.id, collection);
    this.byName.set(collection.name.toLowerCase(), collection);
  }

  remove(id: string): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.byId.delete(id);
    this.byName.delete(old.name.toLowerCase());
  }

  /** Bound for passing around as `lookup`. */
  readonly lookup = (idOrName: string): Collection | undefined => this.get(idOrName);
}
