// A failed schema save in words, placed where it belongs. The server reports a unique index that cannot
// be built over duplicate values as SQLite does ("Raw error: UNIQUE constraint failed: posts.title",
// under data.indexes, as PocketBase words it); people need to read which index failed and what to do.
import type { ApiError, ErrorData } from '../api.js';
import { errorUnder } from '../api.js';
import type { Draft } from './collection-draft.js';

export interface SaveProblem {
  /** One sentence for the save bar and the toast. */
  summary: string;
  /** The index the failure is about, and what to say under it. */
  index?: { at: number; text: string };
}

const list = (names: string[]) => (names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`);

export function explainSaveError(err: ApiError, draft: Draft): SaveProblem {
  const data: ErrorData = err.data;
  const indexMessage = errorUnder(data, 'indexes') ?? '';
  const unique = /UNIQUE constraint failed: ([^]+?)\.?$/.exec(indexMessage) ?? /UNIQUE constraint failed: ([^]+?)\.?$/.exec(err.message);
  if (unique) {
    const columns = unique[1].split(',').map((c) => c.trim().split('.').pop() ?? '');
    const nameOf = (id: string) => draft.fields.find((f) => f.field.id === id)?.field.name ?? id;
    const at = draft.indexes.findIndex((ix) => ix.unique && ix.fields.length === columns.length && ix.fields.every((id) => columns.includes(nameOf(id))));
    const what = list(columns);
    const text = `Some records have the same ${what}, so this index cannot be unique. Make those values different first, or untick Unique.`;
    const name = at >= 0 ? `“${draft.indexes[at].name}” ` : '';
    return { summary: `Not saved: the unique index ${name}cannot be built because some records share the same ${what}.`, index: at >= 0 ? { at, text } : undefined };
  }
  const first = firstMessage(data);
  const detail = (first ?? err.message).replace(/^.*Raw error:\s*/, '');
  return { summary: `Not saved: ${detail}` };
}

function firstMessage(data: ErrorData): string | undefined {
  for (const v of Object.values(data)) {
    if (typeof v.message === 'string') return v.message;
    const inner = firstMessage(v as ErrorData);
    if (inner) return inner;
  }
  return undefined;
}
