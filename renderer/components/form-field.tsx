// A labelled form row: label, the control, then the server's error for it (or a hint).
import { Show, type JSX } from 'solid-js';

export function FormField(props: { label: JSX.Element; for: string; error?: string; hint?: JSX.Element; children: JSX.Element; required?: boolean }): JSX.Element {
  return (
    <div class="form-field" classList={{ 'has-error': !!props.error }}>
      <label for={props.for}>
        {props.label}
        <Show when={props.required}>
          <span class="req" aria-label="required">*</span>
        </Show>
      </label>
      {props.children}
      <Show when={props.error} fallback={<Show when={props.hint}><small class="hint">{props.hint}</small></Show>}>
        <small class="error-text" role="alert">{props.error}</small>
      </Show>
    </div>
  );
}
