// "1–30 of 120", previous/next and page size.
import type { JSX } from 'solid-js';

export function Pager(props: { page: number; perPage: number; totalItems: number; totalPages: number; onPage(p: number): void; onPerPage(n: number): void }): JSX.Element {
  const from = () => (props.totalItems === 0 ? 0 : (props.page - 1) * props.perPage + 1);
  const to = () => Math.min(props.page * props.perPage, props.totalItems);
  return (
    <div class="pager">
      <span class="muted">
        {props.totalItems === 0 ? 'No records' : `${from()}–${to()} of ${props.totalItems}`}
      </span>
      <label class="pager-size">
        <span class="muted">Per page</span>
        <select value={String(props.perPage)} onChange={(e) => props.onPerPage(Number(e.currentTarget.value))}>
          <option value="10">10</option>
          <option value="30">30</option>
          <option value="100">100</option>
          <option value="500">500</option>
        </select>
      </label>
      <div class="pager-buttons">
        <button type="button" class="btn btn-small" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
          ← Previous
        </button>
        <span class="muted">
          Page {props.page} of {Math.max(props.totalPages, 1)}
        </span>
        <button type="button" class="btn btn-small" disabled={props.page >= props.totalPages} onClick={() => props.onPage(props.page + 1)}>
          Next →
        </button>
      </div>
    </div>
  );
}
