// The collections, kept in memory and mirrored in `_collections`. Lookups by id or by name (names
// are matched case-insensitively, as PocketBase does).
import type { ReadDb } from '../store/db.js';
import type { Collection } from './types.js';

export class Registry {
  private byId = new Map<string, Collection>();
  private byName = new Map<string, Collection>();

  load(db: ReadDb): void {
    this.byId.clear();
    this.byName.clear();
    for (const row of db.all<{ data: string }>('SELECT "data" FROM "_collections"')) {
      this.put(JSON.parse(row.data) as Collection);
    }
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
