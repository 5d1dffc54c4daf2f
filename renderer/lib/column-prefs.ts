// Which columns of a collection's table are hidden, remembered per collection in localStorage. Kept by
// field id, so renaming a field keeps its choice; ids of fields that are gone are simply ignored.
const key = (collectionId: string) => `deskbase.columns.${collectionId}`;

export function loadHiddenColumns(collectionId: string, storage: Storage = localStorage): string[] {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(key(collectionId)) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function saveHiddenColumns(collectionId: string, hidden: string[], storage: Storage = localStorage): void {
  try {
    if (hidden.length === 0) storage.removeItem(key(collectionId));
    else storage.setItem(key(collectionId), JSON.stringify(hidden));
  } catch {
    // Storage full or disabled: the choice lasts for this page only.
  }
}
