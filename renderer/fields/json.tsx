import { createSignal, onCleanup, onMount, Show, untrack } from 'solid-js';
import type { CodeEditor } from '../lib/json-editor.js';
import type { FieldUi } from './types.js';
import { NumberOpt } from './option-controls.js';

/** Parses the textarea: empty → null; otherwise JSON or an error message. */
export function parseJsonInput(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, message: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}

export const jsonUi: FieldUi<'json'> = {
  label: 'JSON',
  glyph: '{}',
  description: 'Any JSON value: objects, arrays, numbers, text.',
  defaults: () => ({ maxSize: 0 }),
  Input: (props) => {
    // the value as it opens; from then on the text is what is typed (a half-typed value is no JSON yet)
    const [text, setText] = createSignal(untrack(() => (props.value === null || props.value === undefined ? '' : JSON.stringify(props.value, null, 2))));
    const [problem, setProblem] = createSignal<string | null>(null);
    const typed = (value: string) => {
      setText(value);
      const parsed = parseJsonInput(value);
      setProblem(parsed.ok ? null : parsed.message);
      props.ctx.setInvalid(props.field.name, parsed.ok ? null : parsed.message);
      if (parsed.ok) props.onChange(parsed.value);
    };
    // The highlighting editor (CodeMirror, loaded on demand) takes the textarea's place once it is here.
    const [editor, setEditor] = createSignal<CodeEditor | null>(null);
    let host: HTMLDivElement | undefined;
    let gone = false;
    onMount(async () => {
      try {
        const m = await import('../lib/json-editor.js');
        if (gone || !host) return;
        setEditor(m.mountJsonEditor(host, { doc: text(), id: props.id, label: props.field.name, onChange: typed }));
      } catch {
        // the textarea stays
      }
    });
    onCleanup(() => {
      gone = true;
      editor()?.destroy();
    });
    return (
      <>
        <div ref={host} class="code-host" classList={{ 'code-invalid': !!(problem() || props.error) }} data-invalid={problem() || props.error ? 'true' : undefined} />
        <Show when={!editor()}>
          <textarea
            id={props.id}
            class="mono"
            rows={5}
            spellcheck={false}
            value={text()}
            placeholder='{"key": "value"}'
            aria-invalid={problem() || props.error ? 'true' : undefined}
            onInput={(e) => typed(e.currentTarget.value)}
          />
        </Show>
        <Show when={problem()}>
          <small class="error-text" role="alert">{problem()}</small>
        </Show>
      </>
    );
  },
  Options: (props) => (
    <div class="opt-grid">
      <NumberOpt id={`${props.idPrefix}-maxSize`} label="Max size (bytes)" hint="0 means 1 MiB" step="1" value={props.field.maxSize} empty={0} error={props.error('maxSize')} disabled={props.locked} onChange={(v) => props.update({ maxSize: v ?? 0 })} />
    </div>
  ),
};
