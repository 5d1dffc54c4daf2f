// Small labelled controls used by the per-type options editors.
import { Show, type JSX } from 'solid-js';

interface Base {
  id: string;
  label: string;
  hint?: string;
  error?: string;
  disabled?: boolean;
}

function Wrap(props: Base & { children: JSX.Element }): JSX.Element {
  return (
    <div class="opt" classList={{ 'has-error': !!props.error }}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      <Show when={props.error} fallback={<Show when={props.hint}><small class="hint">{props.hint}</small></Show>}>
        <small class="error-text">{props.error}</small>
      </Show>
    </div>
  );
}

/** A number input where empty means `null` (or the given empty value). */
export function NumberOpt(props: Base & { value: number | null; empty?: number | null; onChange(v: number | null): void; step?: string }): JSX.Element {
  return (
    <Wrap {...props}>
      <input
        id={props.id}
        type="number"
        step={props.step ?? 'any'}
        value={props.value === null || props.value === undefined ? '' : String(props.value)}
        disabled={props.disabled}
        onInput={(e) => {
          const raw = e.currentTarget.value;
          props.onChange(raw === '' ? (props.empty === undefined ? null : props.empty) : Number(raw));
        }}
      />
    </Wrap>
  );
}

export function TextOpt(props: Base & { value: string; onChange(v: string): void; placeholder?: string; type?: string }): JSX.Element {
  return (
    <Wrap {...props}>
      <input
        id={props.id}
        type={props.type ?? 'text'}
        value={props.value ?? ''}
        placeholder={props.placeholder}
        disabled={props.disabled}
        onInput={(e) => props.onChange(e.currentTarget.value)}
      />
    </Wrap>
  );
}

/** A comma-separated list of strings (domains, select values). */
export function ListOpt(props: Base & { value: string[]; onChange(v: string[]): void; placeholder?: string }): JSX.Element {
  return (
    <Wrap {...props}>
      <input
        id={props.id}
        type="text"
        value={(props.value ?? []).join(', ')}
        placeholder={props.placeholder}
        disabled={props.disabled}
        onChange={(e) => props.onChange(splitList(e.currentTarget.value))}
      />
    </Wrap>
  );
}

export function CheckOpt(props: { id: string; label: string; hint?: string; checked: boolean; disabled?: boolean; onChange(v: boolean): void }): JSX.Element {
  return (
    <label class="check" for={props.id} title={props.hint}>
      <input id={props.id} type="checkbox" checked={props.checked} disabled={props.disabled} onChange={(e) => props.onChange(e.currentTarget.checked)} />
      <span>{props.label}</span>
    </label>
  );
}

export function splitList(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(',')) {
    const v = part.trim();
    if (v !== '' && !out.includes(v)) out.push(v);
  }
  return out;
}
