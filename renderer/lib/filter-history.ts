// The filter box's recent filters, per collection, in localStorage: the last applied ones first, each
// once, at most HISTORY_MAX. Kept by collection id, so a renamed collection keeps its history.
export const HISTORY_MAX = 8;
const key = (collectionId: string) => `deskbase.filters.${collectionId}`;

export function loadFilterHistory(collectionId: string, storage: Storage = localStorage): string[] {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(key(collectionId)) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string' && x !== '').slice(0, HISTORY_MAX) : [];
  } catch {
    return [];
  }
}

/** `filter` becomes the most recent entry; returns the new list. */
export function rememberFilter(collectionId: string, filter: string, storage: Storage = localStorage): string[] {
  const text = filter.trim();
  const list = loadFilterHistory(collectionId, storage);
  if (text === '') return list;
  const next = [text, ...list.filter((f) => f !== text)].slice(0, HISTORY_MAX);
  try {
    storage.setItem(key(collectionId), JSON.stringify(next));
  } catch {
    // Storage full or disabled: the history lasts for this page only.
  }
  return next;
}
