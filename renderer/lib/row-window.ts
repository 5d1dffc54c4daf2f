// Windowing for a long table: past WINDOW_FROM rows only the rows in view (and a margin) are in the DOM,
// between two spacer rows, so a 500-row page costs what a 40-row one does. It reads the scrolling box
// (the table's parent) and the first row's height; the table renders `shown()` and the spacers.
import { createMemo, createSignal, onCleanup, onMount, type Accessor } from 'solid-js';

/** Pages up to this many rows render whole (find-in-page sees them all); longer ones are windowed. */
export const WINDOW_FROM = 120;
const OVERSCAN = 12;
const DEFAULT_ROW_HEIGHT = 41;

export interface RowWindow<T> {
  /** The rows in the DOM: `rows().slice(range().first, range().last)`. */
  shown: Accessor<T[]>;
  range: Accessor<{ first: number; last: number }>;
  rowHeight: Accessor<number>;
  /** Scrolls row `at` into the window when it is outside it; the DOM follows synchronously. */
  reveal(at: number): void;
}

export function createRowWindow<T>(rows: Accessor<T[]>, table: () => HTMLTableElement | undefined): RowWindow<T> {
  // The scrolling box (the .table-wrap around the table) and what of it is in view.
  const [view, setView] = createSignal({ top: 0, height: 900, head: DEFAULT_ROW_HEIGHT });
  const [rowHeight, setRowHeight] = createSignal(DEFAULT_ROW_HEIGHT);
  const scroller = () => table()?.parentElement ?? undefined;
  const measure = () => {
    const box = scroller();
    if (!box) return;
    setView({ top: box.scrollTop, height: box.clientHeight, head: table()?.tHead?.offsetHeight ?? DEFAULT_ROW_HEIGHT });
    const first = table()?.tBodies[0]?.querySelector<HTMLTableRowElement>('tr[data-id]');
    if (first && first.offsetHeight > 0) setRowHeight(first.offsetHeight);
  };
  onMount(() => {
    const box = scroller();
    if (!box) return;
    measure();
    box.addEventListener('scroll', measure, { passive: true });
    const resize = new ResizeObserver(measure);
    resize.observe(box);
    onCleanup(() => {
      box.removeEventListener('scroll', measure);
      resize.disconnect();
    });
  });
  const windowed = () => rows().length > WINDOW_FROM;
  const range = createMemo(
    () => {
      const n = rows().length;
      if (!windowed()) return { first: 0, last: n };
      const v = view();
      const h = rowHeight();
      const first = Math.max(0, Math.floor((v.top - v.head) / h) - OVERSCAN);
      return { first, last: Math.min(n, Math.ceil((v.top + v.height) / h) + OVERSCAN) };
    },
    undefined,
    { equals: (a, b) => a.first === b.first && a.last === b.last },
  );
  const shown = createMemo(() => rows().slice(range().first, range().last));
  const reveal = (at: number) => {
    const box = scroller();
    if (!box || !windowed() || (at >= range().first && at < range().last)) return;
    box.scrollTop = Math.max(0, at * rowHeight() - box.clientHeight / 2);
    measure();
  };
  return { shown, range, rowHeight, reveal };
}
