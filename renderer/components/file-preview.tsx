// A record's files in a preview window: images at full size, anything else named with a link to open
// it; arrows (buttons or ←/→) step through the field's files, Escape closes (lib/focus-trap.ts).
import { createResource, createSignal, Show, untrack, type JSX } from 'solid-js';
import { useFocusTrap } from '../lib/focus-trap.js';
import { formatBytes } from '../lib/format.js';
import { Icon } from './icon.js';

export interface PreviewItem {
  name: string;
  /** A file picked but not uploaded yet: shown from memory. */
  file?: File;
}

const IMAGE = /\.(png|jpe?g|gif|webp|avif|svg)$/i;

export function FilePreview(props: {
  items: PreviewItem[];
  start: number;
  /** The stored file's URL (a protected field's with a file token). */
  url(name: string): Promise<string | undefined>;
  onClose(): void;
}): JSX.Element {
  const [at, setAt] = createSignal(untrack(() => props.start)); // where it opens; the arrows move it from there
  let box: HTMLDivElement | undefined;
  useFocusTrap(() => box, { onEscape: () => props.onClose() });
  const item = () => props.items[at()]!;
  const objectUrls = new Map<File, string>();
  const [src] = createResource(
    () => ({ i: at() }),
    async () => {
      const it = item();
      if (it.file) {
        let u = objectUrls.get(it.file);
        if (!u) objectUrls.set(it.file, (u = URL.createObjectURL(it.file)));
        return u;
      }
      return props.url(it.name);
    },
  );
  const isImage = () => (item().file ? item().file!.type.startsWith('image/') : IMAGE.test(item().name));
  const step = (by: number) => setAt((at() + by + props.items.length) % props.items.length);
  const onKey = (e: KeyboardEvent) => {
    if (props.items.length < 2) return;
    if (e.key === 'ArrowRight') step(1);
    else if (e.key === 'ArrowLeft') step(-1);
  };
  return (
    <div
      class="overlay"
      onClick={(e) => {
        if (e.target !== e.currentTarget) return;
        objectUrls.forEach((u) => URL.revokeObjectURL(u));
        props.onClose();
      }}
    >
      <div ref={box} class="dialog file-preview" role="dialog" aria-modal="true" aria-label={`Preview of ${item().name}`} onKeyDown={onKey}>
        <header class="file-preview-head">
          <h2 class="file-preview-name" title={item().name}>{item().name}</h2>
          <Show when={item().file}>{(f) => <span class="muted">{formatBytes(f().size)}, not uploaded yet</span>}</Show>
          <button type="button" class="btn-icon" aria-label="Close preview" onClick={() => props.onClose()}>
            <Icon name="x" />
          </button>
        </header>
        <div class="file-preview-body">
          <Show when={src()} fallback={<div class="spinner" />}>
            {(u) => (
              <Show when={isImage()} fallback={<p class="muted">No preview for this type of file.</p>}>
                <img src={u()} alt={item().name} />
              </Show>
            )}
          </Show>
        </div>
        <footer class="file-preview-foot">
          <Show when={props.items.length > 1}>
            <button type="button" class="btn" aria-label="Previous file" onClick={() => step(-1)}>←</button>
            <span class="muted">{at() + 1} of {props.items.length}</span>
            <button type="button" class="btn" aria-label="Next file" onClick={() => step(1)}>→</button>
          </Show>
          <span class="spacer" />
          <Show when={src()}>
            {(u) => (
              <a class="btn" href={u()} target="_blank" rel="noopener" download={item().name}>
                <Icon name="download" /> Open
              </a>
            )}
          </Show>
        </footer>
      </div>
    </div>
  );
}
