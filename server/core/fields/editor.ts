// `editor`: rich text (HTML) kept as a string, no sanitising; maxSize 0 means 5 MiB.
import type { FieldError } from '../../errors.js';
import type { EditorField, FieldBase } from '../../model/types.js';
import { TEXT_STORAGE } from './casts.js';
import { checkIntRange, err, OptionReader, required, sortKeys, unsupportedType } from './common.js';
import type { FieldSpec } from './spec.js';

export const DEFAULT_EDITOR_MAX_SIZE = 5 << 20;

function define(input: Record<string, unknown>, base: FieldBase) {
  const r = new OptionReader(input);
  const field: EditorField = sortKeys({ ...base, type: 'editor', maxSize: r.int('maxSize'), convertURLs: r.bool('convertURLs') });
  checkIntRange(r, 'maxSize', field.maxSize, 0);
  return { field, errors: r.errors };
}

/** The content's UTF-8 size past the field's maxSize (5 MiB by default) → the error; a string longer in UTF-16 units is over without counting. */
function sizeError(value: string, field: EditorField): FieldError | null {
  const maxSize = field.maxSize > 0 ? field.maxSize : DEFAULT_EDITOR_MAX_SIZE;
  const over = value.length > maxSize || (value.length * 3 > maxSize && Buffer.byteLength(value, 'utf8') > maxSize);
  return over ? err('validation_content_size_limit', 'The maximum allowed content size is {maxSize} bytes.', { maxSize }) : null;
}

export const editorSpec: FieldSpec<'editor'> = {
  type: 'editor',
  ...TEXT_STORAGE,
  define,
  oversize: (value, field) => (typeof value === 'string' ? sizeError(value, field) : null),
  validate(value, field) {
    if (typeof value !== 'string') return unsupportedType();
    if (field.required && value === '') return required();
    return sizeError(value, field);
  },
};
