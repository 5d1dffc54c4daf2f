// The records of one collection: filter, sortable table, paging, and the side panel to create/edit.
import { createMemo, createResource, createSignal, For, Show, type JSX } from 'solid-js';
import type { Collection, RecordModel } from '../api.js';
import { ApiError, messageOf } from '../api.js';
import { useApp } from '../app-context.js';
import { isInternalField } from '../lib/format.js';
import { Icon } from '../components/icon.js';
import { Cell } from '../components/cell.js';
import { Pager } from '../components/pager.js';
import { FilterHelp } from '../components/filter-help.js';
import { RecordPanel } from '../components/record-panel.js';
import { ImportErrors, RecordsTransfer, type ImportProblem } from '../components/records-transfer.js';
import { useLive } from '../lib/live.js';

/** The server's detail (data.*.message) when it gave one, else its message. */
function filterDetail(err: ApiError): string {
  const details = Object.values(err.data)
    .map((d) => (typeof d.message === 'string' ? d.message : ''))
    .filter((m) => m !== '');
  return details.length > 0 ? details.join(' ') : err.message;
}

export function RecordsView(props: { collection: Collection }): JSX.Element {
  const app = useApp();
  const hasCreated = () => props.collection.fields.some((f) => f.name === 'created');
  const [page, setPage] = createSignal(1);
  const [perPage, setPerPage] = createSignal(30);
  const [sort, setSort] = createSignal(hasCreated() ? '-created' : '');
  const [filter, setFilter] = createSignal('');
  const [draft, setDraft] = createSignal('');
  const [showHelp, setShowHelp] = createSignal(false);
  const [version, setVersion] = createSignal(0);
  const [editing, setEditing] = createSignal<RecordModel | 'new' | null>(null);
  const [importProblem, setImportProblem] = createSignal<ImportProblem | null>(null);

  const columns = createMemo(() => props.collection.fields.filter((f) => f.type !== 'password' && !isInternalField(f, props.collection)));
  const expand = () => props.collection.fields.filter((f) => f.type === 'relation').map((f) => f.name).join(',');

  const [data] = createResource(
    () => ({ c: props.collection.name, page: page(), perPage: perPage(), sort: sort(), filter: filter(), v: version() }),
    (q) => app.api.listRecords(q.c, { page: q.page, perPage: q.perPage, sort: q.sort, filter: q.filter, expand: expand() }),
  );

  const applyFilter = (e?: Event) => {
    e?.preventDefault();
    setPage(1);
    setFilter(draft().trim());
  };
  const toggleSort = (name: string) => {
    setSort(sort() === name ? `-${name}` : sort() === `-${name}` ? '' : name);
    setPage(1);
  };
  // Reading an errored resource throws, so the table reads the last good page through this guard.
  const current = () => (data.error ? undefined : data.latest);
  const reload = () => setVersion(version() + 1);
  // another client's writes show up without a manual refresh
  useLive(app.api, () => [`${props.collection.name}/*`], reload);
  const filterError = () => (data.error instanceof ApiError && data.error.status === 400 && filter() !== '' ? data.error : undefined);

  return (
    <section class="records">
      <div class="toolbar">
        <form class="filter-box" classList={{ 'has-error': !!filterError() }} onSubmit={applyFilter} role="search">
          <Icon name="search" />
          <input
            type="text"
            class="mono"
            spellcheck={false}
            autocomplete="off"
            placeholder='Filter, e.g. title ~ "hello"'
            aria-label="Filter records"
            value={draft()}
            onInput={(e) => setDraft(e.currentTarget.value)}
            onKeyDown={(e) => e.key === 'Escape' && (setDraft(''), applyFilter())}
          />
          <Show when={filter() !== ''}>
            <button type="button" class="btn-icon" aria-label="Clear filter" onClick={() => (setDraft(''), applyFilter())}>
              <Icon name="x" />
            </button>
          </Show>
          <button type="button" class="btn-icon" classList={{ active: showHelp() }} aria-label="Filter help" aria-expanded={showHelp()} onClick={() => setShowHelp(!showHelp())}>
            <Icon name="help" />
          </button>
        </form>
        <RecordsTransfer collection={props.collection.name} filter={filter()} sort={sort()} onImported={reload} onFailed={setImportProblem} />
        <button type="button" class="btn" onClick={reload} aria-label="Refresh" title="Refresh">
          <Icon name="refresh" />
        </button>
        <button type="button" class="btn btn-primary" onClick={() => setEditing('new')}>
          <Icon name="plus" /> New record
        </button>
      </div>
      <Show when={importProblem()}>
        {(p) => <ImportErrors problem={p()} onDismiss={() => setImportProblem(null)} />}
      </Show>
      <Show when={filterError()}>
        {(err) => (
          <p class="alert alert-error filter-error" role="alert">
            <b>Invalid filter.</b> {filterDetail(err())}
          </p>
        )}
      </Show>
      <Show when={showHelp()}>
        <FilterHelp collection={props.collection} onPick={(ex) => (setDraft(ex), applyFilter())} />
      </Show>
      <Show when={data.error && !filterError()}>
        <p class="alert alert-error" role="alert">Could not load records: {messageOf(data.error)}</p>
      </Show>

      <div class="table-wrap" classList={{ loading: data.loading }}>
        <table class="table">
          <thead>
            <tr>
              <For each={columns()}>
                {(f) => (
                  <th scope="col" aria-sort={sort() === f.name ? 'ascending' : sort() === `-${f.name}` ? 'descending' : undefined}>
                    <button type="button" class="th-sort" onClick={() => toggleSort(f.name)} title={`Sort by ${f.name}`}>
                      <span>{f.name}</span>
                      <span class="sort-mark" aria-hidden="true">{sort() === f.name ? '▲' : sort() === `-${f.name}` ? '▼' : ''}</span>
                    </button>
                  </th>
                )}
              </For>
            </tr>
          </thead>
          <tbody>
            <For each={current()?.items ?? []}>
              {(r) => (
                <tr tabIndex={0} onClick={() => setEditing(r)} onKeyDown={(e) => e.key === 'Enter' && setEditing(r)} aria-label={`Edit record ${r.id}`}>
                  <For each={columns()}>{(f) => <td data-type={f.type}><Cell record={r} field={f} findCollection={app.findCollection} fileUrl={app.api.fileUrl} /></td>}</For>
                </tr>
              )}
            </For>
          </tbody>
        </table>
        <Show when={current()?.items.length === 0}>
          <div class="empty">
            <Show
              when={filter() === ''}
              fallback={
                <>
                  <p>No records match this filter.</p>
                  <button type="button" class="btn" onClick={() => (setDraft(''), applyFilter())}>Clear filter</button>
                </>
              }
            >
              <p>No records yet.</p>
              <button type="button" class="btn btn-primary" onClick={() => setEditing('new')}>
                <Icon name="plus" /> Add the first record
              </button>
            </Show>
          </div>
        </Show>
        <Show when={data.loading && !current()}>
          <div class="empty"><div class="spinner" /></div>
        </Show>
      </div>
      <Show when={current()} keyed>
        {(d) => <Pager page={d.page} perPage={perPage()} totalItems={d.totalItems} totalPages={d.totalPages} onPage={setPage} onPerPage={(n) => (setPerPage(n), setPage(1))} />}
      </Show>

      {/* keyed: the panel gets the record itself, so closing it never reads a stale accessor. */}
      <Show when={editing()} keyed>
        {(rec) => (
          <RecordPanel
            collection={props.collection}
            record={rec === 'new' ? undefined : rec}
            expand={expand()}
            onClose={() => setEditing(null)}
            onSaved={() => (setEditing(null), reload())}
          />
        )}
      </Show>
    </section>
  );
}
