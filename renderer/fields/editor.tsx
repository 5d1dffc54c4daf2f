// `editor`: rich text. A WYSIWYG editor (TipTap, lib/rich-text.ts, loaded on demand) with a small
// toolbar; until it has loaded (or if it cannot), a plain textarea of the HTML does the job.
import { createSignal, For, onCleanup, onMount, Show } from 'solid-js';
import type { FieldUi, InputProps } from './types.js';
import type { RichText } from '../lib/rich-text.js';
import { NumberOpt } from './option-controls.js';

interface Tool {
  label: string;
  text: string;
  run(e: RichText): void;
  active?(e: RichText): boolean;
}

const TOOLS: Tool[] = [
  { label: 'Bold', text: 'B', run: (e) => e.chain().focus().toggleBold().run(), active: (e) => e.isActive('bold') },
  { label: 'Italic', text: 'I', run: (e) => e.chain().focus().toggleItalic().run(), active: (e) => e.isActive('italic') },
  { label: 'Heading', text: 'H', run: (e) => e.chain().focus().toggleHeading({ level: 2 }).run(), active: (e) => e.isActive('heading', { level: 2 }) },
  { label: 'Subheading', text: 'h', run: (e) => e.chain().focus().toggleHeading({ level: 3 }).run(), active: (e) => e.isActive('heading', { level: 3 }) },
  { label: 'Bulleted list', text: '•', run: (e) => e.chain().focus().toggleBulletList().run(), active: (e) => e.isActive('bulletList') },
  { label: 'Numbered list', text: '1.', run: (e) => e.chain().focus().toggleOrderedList().run(), active: (e) => e.isActive('orderedList') },
  { label: 'Quote', text: '❝', run: (e) => e.chain().focus().toggleBlockquote().run(), active: (e) => e.isActive('blockquote') },
  { label: 'Code', text: '</>', run: (e) => e.chain().focus().toggleCode().run(), active: (e) => e.isActive('code') },
  { label: 'Undo', text: '↶', run: (e) => e.chain().focus().undo().run() },
  { label: 'Redo', text: '↷', run: (e) => e.chain().focus().redo().run() },
];

function EditorInput(props: InputProps<'editor'>) {
  const [rich, setRich] = createSignal<RichText | null>(null);
  // Bumped on every transaction: the toolbar's pressed states read it.
  const [state, bump] = createSignal(0);
  let host: HTMLDivElement | undefined;
  let gone = false;
  onMount(async () => {
    try {
      const m = await import('../lib/rich-text.js');
      if (gone || !host) return;
      // what was typed in the textarea meanwhile carries over
      const html = typeof props.value === 'string' ? props.value : '';
      setRich(m.mountRichText(host, { html, id: props.id, label: props.field.name, onChange: (html) => props.onChange(html), onState: () => bump(state() + 1) }));
    } catch {
      // the textarea stays
    }
  });
  onCleanup(() => {
    gone = true;
    rich()?.destroy();
  });
  return (
    <div class="rich-text" classList={{ 'rich-ready': !!rich(), 'has-error': !!props.error }}>
      <Show when={rich()}>
        {(e) => (
          <div class="rich-toolbar" role="toolbar" aria-label={`${props.field.name} formatting`}>
            <For each={TOOLS}>
              {(t) => (
                <button
                  type="button"
                  class="rich-tool"
                  aria-label={t.label}
                  title={t.label}
                  aria-pressed={t.active ? (state(), t.active(e())) : undefined}
                  // mousedown: the editor keeps its selection
                  onMouseDown={(ev) => ev.preventDefault()}
                  onClick={() => t.run(e())}
                >
                  {t.text}
                </button>
              )}
            </For>
          </div>
        )}
      </Show>
      <div ref={host} class="rich-host" />
      <Show when={!rich()}>
        <textarea
          id={props.id}
          rows={6}
          value={typeof props.value === 'string' ? props.value : ''}
          aria-invalid={props.error ? 'true' : undefined}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
      </Show>
    </div>
  );
}

export const editorUi: FieldUi<'editor'> = {
  label: 'Rich text',
  glyph: '¶',
  description: 'Long text or HTML content.',
  defaults: () => ({ maxSize: 0, convertURLs: false }),
  Input: EditorInput,
  Options: (props) => (
    <div class="opt-grid">
      <NumberOpt id={`${props.idPrefix}-maxSize`} label="Max size (bytes)" hint="0 means 5 MiB" value={props.field.maxSize} empty={0} step="1" error={props.error('maxSize')} disabled={props.locked} onChange={(v) => props.update({ maxSize: v ?? 0 })} />
    </div>
  ),
};
