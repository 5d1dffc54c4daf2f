// How one value looks in the records table, per field type. Built once per row as plain DOM with no
// reactive wiring: a row is replaced as a whole when its record changes, so 500 rows cost 500 × columns
// small nodes and nothing that listens (the old per-cell <Switch> made ~8 memos a cell).
import type { JSX } from 'solid-js';
import type { Collection, Field, RecordModel } from '../api.js';
import { abbreviate, formatDate, formatJson, formatNumberValue, recordLabel } from '../lib/format.js';

function related(record: RecordModel, field: Field): RecordModel[] {
  const e = record.expand?.[field.name];
  if (!e) return [];
  return Array.isArray(e) ? e : [e];
}

function ids(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' && value !== '' ? [value] : [];
}

const empty = () => <span class="muted">—</span>;

function chips(labels: string[], cls: string): JSX.Element {
  if (labels.length === 0) return empty();
  const span = document.createElement('span');
  span.className = 'chips-inline';
  for (const l of labels) {
    const chip = document.createElement('span');
    chip.className = cls;
    chip.textContent = l;
    chip.title = l;
    span.append(chip);
  }
  return span;
}

/** Where the grid reads a stored file (renderer/api.ts `fileUrl`); thumbnails ask for 100x100. */
export type FileUrl = (collectionId: string, recordId: string, name: string, thumb?: string) => string;

const IMAGE = /\.(png|jpe?g|gif|webp)$/i;

/** Images as 100x100 thumbnails (not for protected fields: their URLs need a file token), others as chips. */
function files(record: RecordModel, names: string[], isProtected: boolean, fileUrl?: FileUrl): JSX.Element {
  if (names.length === 0) return empty();
  const span = document.createElement('span');
  span.className = 'chips-inline file-cell';
  for (const name of names) {
    if (IMAGE.test(name) && !isProtected && fileUrl) {
      const img = document.createElement('img');
      img.className = 'cell-thumb';
      img.src = fileUrl(record.collectionId, record.id, name, '100x100');
      img.alt = name;
      img.title = name;
      img.width = 28;
      img.height = 28;
      img.loading = 'lazy';
      span.append(img);
    } else {
      const chip = document.createElement('span');
      chip.className = 'chip chip-sm';
      chip.title = name;
      chip.textContent = abbreviate(name, 24);
      span.append(chip);
    }
  }
  return span;
}

export function renderCell(record: RecordModel, field: Field, findCollection: (id: string) => Collection | undefined, fileUrl?: FileUrl): JSX.Element {
  const v = record[field.name];
  switch (field.type) {
    case 'bool': {
      const on = v === true;
      return <span class={on ? 'badge badge-true' : 'badge'}>{on ? 'True' : 'False'}</span>;
    }
    case 'number': {
      const text = formatNumberValue(v);
      return <span class="num">{text}</span>;
    }
    case 'date':
    case 'autodate': {
      if (typeof v !== 'string' || v === '') return empty();
      const text = formatDate(v);
      return <time datetime={v} title={v}>{text}</time>;
    }
    case 'editor': {
      if (typeof v !== 'string' || v === '') return empty();
      const text = abbreviate(v.replace(/<[^>]*>/g, ' '));
      return <span>{text}</span>;
    }
    case 'select':
      return chips(ids(v), 'chip chip-sm');
    case 'relation': {
      const expanded = related(record, field);
      const target = findCollection(field.collectionId);
      return chips(expanded.length > 0 ? expanded.map((r) => recordLabel(r, target)) : ids(v), 'chip chip-sm chip-rel');
    }
    case 'file':
      return files(record, ids(v), field.protected === true, fileUrl);
    case 'json': {
      if (v === null || v === undefined) return empty();
      const text = formatJson(v, 48);
      return <code class="json">{text}</code>;
    }
    case 'geoPoint': {
      const p = v as { lon?: number; lat?: number } | null;
      if (!p) return empty();
      const text = `${p.lon ?? 0}, ${p.lat ?? 0}`;
      return <span class="num">{text}</span>;
    }
    default: {
      if (field.type === 'text' && field.name === 'id') {
        const text = String(v ?? '');
        return <code class="id">{text}</code>;
      }
      if (typeof v !== 'string' || v === '') return empty();
      const text = abbreviate(v);
      return <span>{text}</span>;
    }
  }
}
