// The `editor` field's WYSIWYG editor: TipTap (ProseMirror) with its StarterKit (paragraphs, headings,
// lists, quotes, code, bold, italic, strike, underline, links). Loaded on demand by fields/editor.tsx.
// What it writes is HTML of that schema only: content it loads is parsed (by an inert DOMParser, where
// nothing loads or runs) into the schema, so scripts, event attributes, styles, images and unknown tags
// are dropped, and links keep only http(s), mailto and relative targets. The
// API stores `editor` values as they come (semantics.md: no sanitising on the server, as PocketBase),
// so this is what keeps the admin UI's own output clean.
import { Editor } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';

export interface RichTextOptions {
  html: string;
  id: string;
  label: string;
  onChange(html: string): void;
  /** Called after every transaction, for the toolbar's pressed states. */
  onState(): void;
}

export type RichText = Editor;

/**
 * The HTML sent: an empty document as "" (the API's zero value, which `required` checks), and without
 * the empty paragraph the editor keeps after a final list or quote so the caret can leave it.
 */
export function htmlOf(editor: Editor): string {
  return editor.isEmpty ? '' : editor.getHTML().replace(/(?:<p><\/p>)+$/, '');
}

export function mountRichText(parent: HTMLElement, opts: RichTextOptions): Editor {
  return new Editor({
    element: parent,
    content: opts.html,
    extensions: [
      StarterKit.configure({
        heading: { levels: [2, 3] },
        link: {
          openOnClick: false,
          autolink: true,
          HTMLAttributes: { rel: 'noopener noreferrer nofollow', target: null },
          // web and mail links only (TipTap already refuses javascript:)
          isAllowedUri: (url, ctx) => ctx.defaultValidate(url) && /^(https?:|mailto:|\/|#)/i.test(url.trim()),
        },
      }),
    ],
    editorProps: { attributes: { id: opts.id, 'aria-label': opts.label, 'aria-multiline': 'true', role: 'textbox', class: 'rich-text-content' } },
    onUpdate: ({ editor }) => opts.onChange(htmlOf(editor)),
    onTransaction: () => opts.onState(),
  });
}
