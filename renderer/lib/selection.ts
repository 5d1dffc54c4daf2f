// Which records of a table are selected, kept by id across pages and reloads, with Shift ranges as file
// managers do them: Shift+click sets every row between the last clicked one and this one to the state
// the click gives this row.
import { createSignal, untrack } from 'solid-js';
import type { RecordModel } from '../api.js';

export function createSelection() {
  const [picked, setPicked] = createSignal<ReadonlyMap<string, RecordModel>>(new Map());
  let anchor: string | null = null;

  const has = (id: string) => picked().has(id);

  /** Clicks the box of `record` in `rows` (the page in its order); `range` is Shift. */
  const toggle = (record: RecordModel, rows: readonly RecordModel[], range = false) => {
    const next = new Map(picked());
    const on = !next.has(record.id);
    const from = range && anchor !== null ? rows.findIndex((r) => r.id === anchor) : -1;
    const to = rows.findIndex((r) => r.id === record.id);
    const span = from >= 0 && to >= 0 ? rows.slice(Math.min(from, to), Math.max(from, to) + 1) : [record];
    for (const r of span) {
      if (on) next.set(r.id, r);
      else next.delete(r.id);
    }
    anchor = record.id;
    setPicked(next);
  };

  /** Selects every row of the page, or clears them when all are selected already. */
  const togglePage = (rows: readonly RecordModel[]) => {
    const next = new Map(picked());
    const all = rows.length > 0 && rows.every((r) => next.has(r.id));
    for (const r of rows) {
      if (all) next.delete(r.id);
      else next.set(r.id, r);
    }
    setPicked(next);
  };

  /** Newer copies of selected records (after a reload), and ids that are gone removed. */
  const refresh = (rows: readonly RecordModel[], gone: readonly string[] = []) => {
    // Untracked: an effect that refreshes on new rows must not also rerun on its own write.
    const cur = untrack(picked);
    if (cur.size === 0) return;
    const next = new Map(cur);
    for (const r of rows) if (next.has(r.id)) next.set(r.id, r);
    for (const id of gone) next.delete(id);
    setPicked(next);
  };

  const clear = () => {
    anchor = null;
    setPicked(new Map());
  };

  return { has, toggle, togglePage, refresh, clear, count: () => picked().size, records: () => [...picked().values()] };
}

export type Selection = ReturnType<typeof createSelection>;
