// The `sort` parameter: comma-separated fields, `-` for descending, `+` or nothing for ascending
// (PocketBase's ParseSortFromString). Only the list shape is checked here; the compiler resolves names.
import { FilterError, quote } from './filter-error.js';
import { MAX_SORT_FIELDS, MAX_SORT_FIELD_LENGTH } from './limits.js';

export interface SortItem {
  /** The field or path without its direction prefix (`author.name`, `@random`, `@rowid`). */
  name: string;
  desc: boolean;
  /** 0-based offset of the name in the source. */
  pos: number;
}

/** An empty or blank source gives no items. */
export function parseSort(src: string): SortItem[] {
  if (src.trim() === '') return [];
  const items: SortItem[] = [];
  let offset = 0;
  for (const part of src.split(',')) {
    const lead = part.length - part.trimStart().length;
    let name = part.trim();
    let pos = offset + lead;
    offset += part.length + 1;
    const desc = name.startsWith('-');
    if (desc || name.startsWith('+')) {
      name = name.slice(1);
      pos++;
    }
    if (items.length >= MAX_SORT_FIELDS) throw new FilterError(`too many sort fields (max ${MAX_SORT_FIELDS})`, pos);
    if (name.length > MAX_SORT_FIELD_LENGTH) {
      throw new FilterError(`sort field is too long (max ${MAX_SORT_FIELD_LENGTH} characters)`, pos);
    }
    if (!/^[A-Za-z_@][\w.:]*$/.test(name) || /[.:]$/.test(name)) {
      throw new FilterError(`invalid sort field ${quote(name)}`, pos);
    }
    items.push({ name, desc, pos });
  }
  return items;
}
