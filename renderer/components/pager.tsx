// "1–30 of 10,000", previous/next, a page number to jump to, and the page size.
import { createEffect, createSignal, For, untrack, type JSX } from 'solid-js';
import { formatCount } from '../lib/format.js';

export const PAGE_SIZES = [10, 30, 100, 500];

export function Pager(props: { page: number; perPage: number; totalItems: number; totalPages: number; onPage(p: number): void; onPerPage(n: number): void; noun?: string }): JSX.Element {
  const from = () => (props.totalItems === 0 ? 0 : (props.page - 1) * props.perPage + 1);
  const to = () => Math.min(props.page * props.perPage, props.totalItems);
  const last = () => Math.max(props.totalPages, 1);
  // The typed page number; put back to the current page whenever it changes or a jump is refused.
  const [typed, setTyped] = createSignal(untrack(() => String(props.page)));
  createEffect(() => setTyped(String(props.page)));
  const jump = (e: Event) => {
    e.preventDefault();
    const n = Math.trunc(Number(typed()));
    if (!Number.isFinite(n) || n < 1) return setTyped(String(props.page));
    const target = Math.min(n, last());
    setTyped(String(target));
    if (target !== props.page) props.onPage(target);
  };
  return (
    <div class="pager">
      <span class="muted pager-range">
        {props.totalItems === 0 ? `No ${props.noun ?? 'records'}` : `${formatCount(from())}–${formatCount(to())} of ${formatCount(props.totalItems)}`}
      </span>
      <label class="pager-size">
        <span class="muted">Per page</span>
        <select value={String(props.perPage)} onChange={(e) => props.onPerPage(Number(e.currentTarget.value))}>
          <For each={PAGE_SIZES}>{(n) => <option value={String(n)}>{n}</option>}</For>
        </select>
      </label>
      <div class="pager-buttons">
        <button type="button" class="btn btn-small" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
          ← Previous
        </button>
        {/* novalidate: a page past the end is taken to the last page, not refused by the browser. */}
        <form class="pager-jump" onSubmit={jump} novalidate>
          <label class="muted" for="pager-page">Page</label>
          <input
            id="pager-page"
            type="number"
            min="1"
            max={last()}
            inputMode="numeric"
            value={typed()}
            aria-label="Page number"
            onInput={(e) => setTyped(e.currentTarget.value)}
            onBlur={jump}
          />
          <span class="muted">of {formatCount(last())}</span>
        </form>
        <button type="button" class="btn btn-small" disabled={props.page >= props.totalPages} onClick={() => props.onPage(props.page + 1)}>
          Next →
        </button>
      </div>
    </div>
  );
}
