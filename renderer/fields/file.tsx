// `file`: the stored files with previews (thumbnails of images), new files picked or dropped, each
// removable and movable; the options PocketBase has (maxSelect, maxSize, mimeTypes, thumbs, protected).
import { createSignal, For, onCleanup, Show } from 'solid-js';
import type { FieldUi, InputProps } from './types.js';
import { isFile } from '../lib/form-body.js';
import { formatBytes } from '../lib/format.js';
import { CheckOpt, ListOpt, NumberOpt } from './option-controls.js';
import { FilePreview } from '../components/file-preview.js';

type Item = string | File;

const IMAGE_NAME = /\.(png|jpe?g|gif|webp)$/i;

function itemsOf(value: unknown): Item[] {
  const list = Array.isArray(value) ? value : value === '' || value === null || value === undefined ? [] : [value];
  return list.filter((v): v is Item => typeof v === 'string' || isFile(v));
}

function FileInput(props: InputProps<'file'>) {
  const multiple = () => props.field.maxSelect > 1;
  const [over, setOver] = createSignal(false);
  const urls = new Map<File, string>();
  onCleanup(() => urls.forEach((u) => URL.revokeObjectURL(u)));
  const items = () => itemsOf(props.value);
  const set = (next: Item[]) => props.onChange(multiple() ? next : (next[next.length - 1] ?? ''));
  const add = (files: FileList | File[] | null) => {
    if (!files || files.length === 0) return;
    const picked = [...files];
    set(multiple() ? [...items(), ...picked] : picked.slice(-1));
  };
  const move = (i: number, by: number) => {
    const list = [...items()];
    const [it] = list.splice(i, 1);
    list.splice(i + by, 0, it);
    set(list);
  };
  const preview = (item: Item): string | null => {
    if (isFile(item)) {
      if (!item.type.startsWith('image/')) return null;
      let u = urls.get(item);
      if (!u) urls.set(item, (u = URL.createObjectURL(item)));
      return u;
    }
    const rec = props.ctx.record;
    if (!rec || props.field.protected || !IMAGE_NAME.test(item)) return null;
    return props.ctx.api.fileUrl(rec.collectionId, rec.id, item, '100x100');
  };
  const link = (item: Item) => {
    const rec = props.ctx.record;
    return typeof item === 'string' && rec && !props.field.protected ? props.ctx.api.fileUrl(rec.collectionId, rec.id, item) : undefined;
  };
  // The preview window: which item it opened on, or null.
  const [previewAt, setPreviewAt] = createSignal<number | null>(null);
  const storedUrl = async (name: string) => {
    const rec = props.ctx.record;
    if (!rec) return undefined;
    const url = props.ctx.api.fileUrl(rec.collectionId, rec.id, name);
    // a protected file opens with a short-lived file token (the superuser's own)
    return props.field.protected ? `${url}?token=${encodeURIComponent(await props.ctx.api.fileToken())}` : url;
  };
  return (
    <div class="file-input" classList={{ 'file-over': over() }} aria-invalid={props.error ? 'true' : undefined}
      onDragOver={(e) => { e.preventDefault(); setOver(true); }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => { e.preventDefault(); setOver(false); add(e.dataTransfer?.files ?? null); }}>
      <ul class="file-list" aria-label={`${props.field.name} files`}>
        <For each={items()}>
          {(item, i) => (
            <li class="file-item" classList={{ 'file-new': isFile(item) }}>
              <button type="button" class="file-open" aria-label={`Preview ${isFile(item) ? item.name : item}`} title="Preview" onClick={() => setPreviewAt(i())}>
                <Show when={preview(item)} fallback={<span class="file-glyph" aria-hidden="true">▤</span>}>
                  {(src) => <img class="file-thumb" src={src()} alt="" width="40" height="40" />}
                </Show>
              </button>
              <span class="file-name">
                <Show when={link(item)} fallback={<span>{isFile(item) ? item.name : item}</span>}>
                  {(href) => <a href={href()} target="_blank" rel="noopener">{String(item)}</a>}
                </Show>
                <Show when={isFile(item)}><small class="muted"> new · {formatBytes((item as File).size)}</small></Show>
              </span>
              <Show when={multiple()}>
                <button type="button" class="btn btn-ghost btn-sm" aria-label="Move up" disabled={i() === 0} onClick={() => move(i(), -1)}>↑</button>
                <button type="button" class="btn btn-ghost btn-sm" aria-label="Move down" disabled={i() === items().length - 1} onClick={() => move(i(), 1)}>↓</button>
              </Show>
              <button type="button" class="btn btn-ghost btn-sm" aria-label={`Remove ${isFile(item) ? item.name : item}`} onClick={() => set(items().filter((_, k) => k !== i()))}>✕</button>
            </li>
          )}
        </For>
      </ul>
      <Show when={previewAt() !== null}>
        <FilePreview
          items={items().map((it) => (isFile(it) ? { name: it.name, file: it } : { name: it }))}
          start={Math.min(previewAt()!, items().length - 1)}
          url={storedUrl}
          onClose={() => setPreviewAt(null)}
        />
      </Show>
      <label class="file-drop">
        <input id={props.id} type="file" multiple={multiple()} class="visually-hidden" onChange={(e) => { add(e.currentTarget.files); e.currentTarget.value = ''; }} />
        <span>{multiple() ? 'Drop files here or ' : 'Drop a file here or '}<u>browse</u></span>
        <small class="hint">{items().length} of at most {Math.max(props.field.maxSelect, 1)} · up to {formatBytes(props.field.maxSize > 0 ? props.field.maxSize : 5 << 20)} each</small>
      </label>
    </div>
  );
}

export const fileUi: FieldUi<'file'> = {
  label: 'File',
  glyph: '▤',
  description: 'Uploaded files: images with thumbnails, documents, anything.',
  defaults: () => ({ maxSelect: 1, maxSize: 0, mimeTypes: [], thumbs: [], protected: false }),
  Input: FileInput,
  Options: (props) => (
    <div class="opt-grid">
      <NumberOpt id={`${props.idPrefix}-maxSelect`} label="Max files" hint="1 = single file" step="1" value={props.field.maxSelect} empty={1} error={props.error('maxSelect')} disabled={props.locked} onChange={(v) => props.update({ maxSelect: v ?? 1 })} />
      <NumberOpt id={`${props.idPrefix}-maxSize`} label="Max size (bytes)" hint="Empty or 0 = 5 MiB" step="1" value={props.field.maxSize || null} empty={0} error={props.error('maxSize')} disabled={props.locked} onChange={(v) => props.update({ maxSize: v ?? 0 })} />
      <ListOpt id={`${props.idPrefix}-mimeTypes`} label="Allowed types" placeholder="image/png, image/jpeg" hint="Comma separated; empty = any" value={props.field.mimeTypes} error={props.error('mimeTypes')} disabled={props.locked} onChange={(v) => props.update({ mimeTypes: v })} />
      <ListOpt id={`${props.idPrefix}-thumbs`} label="Thumb sizes" placeholder="100x100, 0x300, 200x200f" hint="WxH, WxHt, WxHb, WxHf, 0xH, Wx0" value={props.field.thumbs} error={props.error('thumbs')} disabled={props.locked} onChange={(v) => props.update({ thumbs: v })} />
      <CheckOpt id={`${props.idPrefix}-protected`} label="Protected" hint="Downloads need a file token and the view rule" checked={props.field.protected} disabled={props.locked} onChange={(v) => props.update({ protected: v })} />
    </div>
  ),
};
