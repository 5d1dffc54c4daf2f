// How one value looks in the records table, per field type.
import { For, Match, Switch, type JSX } from 'solid-js';
import type { Collection, Field, RecordModel } from '../api.js';
import { abbreviate, formatDate, formatJson, recordLabel } from '../lib/format.js';

function related(record: RecordModel, field: Field): RecordModel[] {
  const e = record.expand?.[field.name];
  if (!e) return [];
  return Array.isArray(e) ? e : [e];
}

function ids(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' && value !== '' ? [value] : [];
}

export function Cell(props: { record: RecordModel; field: Field; findCollection(id: string): Collection | undefined; fileUrl?(collectionId: string, recordId: string, name: string, thumb?: string): string }): JSX.Element {
  const v = () => props.record[props.field.name];
  const empty = <span class="muted">—</span>;
  return (
    <Switch fallback={typeof v() === 'string' && v() !== '' ? <span>{abbreviate(String(v()))}</span> : empty}>
      <Match when={props.field.type === 'text' && props.field.name === 'id'}>
        <code class="id">{String(v() ?? '')}</code>
      </Match>
      <Match when={props.field.type === 'bool'}>
        <span class="badge" classList={{ 'badge-true': v() === true }}>{v() === true ? 'True' : 'False'}</span>
      </Match>
      <Match when={props.field.type === 'number'}>
        <span class="num">{typeof v() === 'number' ? String(v()) : '0'}</span>
      </Match>
      <Match when={props.field.type === 'date' || props.field.type === 'autodate'}>
        {v() ? <time datetime={String(v())} title={String(v())}>{formatDate(v())}</time> : empty}
      </Match>
      <Match when={props.field.type === 'editor'}>
        {typeof v() === 'string' && v() !== '' ? <span>{abbreviate(String(v()).replace(/<[^>]*>/g, ' '))}</span> : empty}
      </Match>
      <Match when={props.field.type === 'select'}>
        <span class="chips-inline">
          <For each={ids(v())} fallback={empty}>{(s) => <span class="chip chip-sm">{s}</span>}</For>
        </span>
      </Match>
      <Match when={props.field.type === 'relation' && props.field}>
        {(f) => {
          const target = () => {
            const rf = f();
            return rf.type === 'relation' ? props.findCollection(rf.collectionId) : undefined;
          };
          const labels = () => {
            const expanded = related(props.record, f());
            return expanded.length > 0 ? expanded.map((r) => recordLabel(r, target())) : ids(v());
          };
          return (
            <span class="chips-inline">
              <For each={labels()} fallback={empty}>{(l) => <span class="chip chip-sm chip-rel">{l}</span>}</For>
            </span>
          );
        }}
      </Match>
      <Match when={props.field.type === 'file' && props.field}>
        {(f) => (
          <span class="chips-inline file-cell">
            <For each={ids(v())} fallback={empty}>
              {(name) => {
                const prot = () => { const ff = f(); return ff.type === 'file' && ff.protected; };
                return /\.(png|jpe?g|gif|webp)$/i.test(name) && !prot() && props.fileUrl
                  ? <img class="cell-thumb" src={props.fileUrl(props.record.collectionId, props.record.id, name, '100x100')} alt={name} title={name} width="28" height="28" loading="lazy" />
                  : <span class="chip chip-sm" title={name}>{abbreviate(name, 24)}</span>;
              }}
            </For>
          </span>
        )}
      </Match>
      <Match when={props.field.type === 'json'}>
        {v() === null || v() === undefined ? empty : <code class="json">{formatJson(v(), 48)}</code>}
      </Match>
      <Match when={props.field.type === 'geoPoint'}>
        {(() => {
          const p = v() as { lon?: number; lat?: number } | null;
          return p ? <span class="num">{`${p.lon ?? 0}, ${p.lat ?? 0}`}</span> : empty;
        })()}
      </Match>
    </Switch>
  );
}
