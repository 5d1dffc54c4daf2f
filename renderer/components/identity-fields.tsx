// Auth collections: which fields a record can sign in with (identityFields).
import { For, Show, type JSX } from 'solid-js';

export function IdentityFields(props: { candidates: string[]; value: string[]; error?: string; onChange(v: string[]): void }): JSX.Element {
  return (
    <section class="card section">
      <h2>Sign-in</h2>
      <p class="muted section-intro">Fields a record can sign in with, together with its password.</p>
      <div class="chips" role="group" aria-label="Identity fields">
        <For each={props.candidates}>
          {(name) => {
            const on = () => props.value.includes(name);
            return (
              <button type="button" class="chip" classList={{ 'chip-on': on() }} aria-pressed={on()} onClick={() => props.onChange(on() ? props.value.filter((x) => x !== name) : [...props.value, name])}>
                {name}
              </button>
            );
          }}
        </For>
      </div>
      <Show when={props.error}>
        <small class="error-text">{props.error}</small>
      </Show>
    </section>
  );
}
