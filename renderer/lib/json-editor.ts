// The JSON field's editor: CodeMirror 6 with JSON highlighting, bracket matching, undo and search
// (codemirror's basicSetup). Loaded on demand (fields/json.tsx imports it dynamically), so pages without
// a JSON field never download it. The field validates the text itself (parseJsonInput), as you type.
import { basicSetup, EditorView } from 'codemirror';
import { json } from '@codemirror/lang-json';

export interface CodeEditorOptions {
  doc: string;
  /** The element id and accessible name the editable part takes over from the plain textarea. */
  id: string;
  label: string;
  onChange(text: string): void;
}

export interface CodeEditor {
  focus(): void;
  destroy(): void;
}

export function mountJsonEditor(parent: HTMLElement, opts: CodeEditorOptions): CodeEditor {
  const view = new EditorView({
    parent,
    doc: opts.doc,
    extensions: [
      basicSetup,
      json(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ id: opts.id, 'aria-label': opts.label, 'aria-multiline': 'true' }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) opts.onChange(u.state.doc.toString());
      }),
    ],
  });
  return { focus: () => view.focus(), destroy: () => view.destroy() };
}
