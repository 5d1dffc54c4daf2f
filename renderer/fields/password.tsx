import { createEffect, createSignal, onCleanup, Show } from 'solid-js';
import type { FieldUi } from './types.js';
import { NumberOpt, TextOpt } from './option-controls.js';

export const passwordUi: FieldUi<'password'> = {
  label: 'Password',
  glyph: '•••',
  description: 'Stored hashed, never returned by the API.',
  defaults: () => ({ min: 0, max: 0, pattern: '', cost: 0 }),
  // The password is never returned, so editing starts empty; leaving it empty keeps the current one.
  // Records of auth collections also need passwordConfirm.
  Input: (props) => {
    const [confirm, setConfirm] = createSignal('');
    const value = () => (typeof props.value === 'string' ? props.value : '');
    const confirmKey = () => `${props.field.name}Confirm`;
    // Differing passwords are caught here, before anything is sent: the form refuses to save while
    // this field is marked invalid, and the one message shows under the confirmation, where the
    // mistake is.
    const problem = () => (value() === '' ? null : confirm() === '' ? 'Repeat the password to confirm it.' : confirm() !== value() ? 'The passwords do not match.' : null);
    createEffect(() => props.ctx.setInvalid(confirmKey(), problem()));
    onCleanup(() => props.ctx.setInvalid(confirmKey(), null));
    const confirmError = () => (confirm() !== '' || props.ctx.attempted() ? problem() : null) ?? props.ctx.serverError(confirmKey());
    return (
      <div class="stack-sm">
        <input
          id={props.id}
          type="password"
          autocomplete="new-password"
          placeholder={props.ctx.isNew ? '' : 'Leave empty to keep the current password'}
          value={value()}
          aria-invalid={props.error ? 'true' : undefined}
          onInput={(e) => {
            const v = e.currentTarget.value;
            props.onChange(v === '' && !props.ctx.isNew ? undefined : v);
          }}
        />
        <Show when={value() !== '' || props.ctx.isNew}>
          <input
            id={`${props.id}-confirm`}
            type="password"
            autocomplete="new-password"
            placeholder="Repeat the password"
            aria-label="Confirm password"
            value={confirm()}
            aria-invalid={confirmError() ? 'true' : undefined}
            onInput={(e) => {
              setConfirm(e.currentTarget.value);
              props.ctx.setExtra(confirmKey(), e.currentTarget.value);
            }}
          />
          <Show when={confirmError()}>
            <small class="error-text confirm-error" role="alert">{confirmError()}</small>
          </Show>
        </Show>
      </div>
    );
  },
  Options: (props) => (
    <div class="opt-grid">
      <NumberOpt id={`${props.idPrefix}-min`} label="Min length" step="1" value={props.field.min} empty={0} error={props.error('min')} disabled={props.locked} onChange={(v) => props.update({ min: v ?? 0 })} />
      <NumberOpt id={`${props.idPrefix}-max`} label="Max length" step="1" value={props.field.max} empty={0} error={props.error('max')} disabled={props.locked} onChange={(v) => props.update({ max: v ?? 0 })} />
      <TextOpt id={`${props.idPrefix}-pattern`} label="Regex pattern" value={props.field.pattern} error={props.error('pattern')} disabled={props.locked} onChange={(v) => props.update({ pattern: v })} />
    </div>
  ),
};
