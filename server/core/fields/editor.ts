// `editor`: rich text (HTML) kept as a string, no sanitising; maxSize 0 means 5 MiB.
import type { EditorField, FieldBase } from '../types.js';
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

export const editorSpec: FieldSpec<'editor'> = {
  type: 'editor',
  ...TEXT_STORAGE,
  define,
  validate(value, field) {
    if (typeof value !== 'string') return unsupportedType();
    if (field.required && value === '') return required();
    const maxSize = field.maxSize > 0 ? field.maxSize : DEFAULT_EDITOR_MAX_SIZE;
    if (Buffer.byteLength(value, 'utf8') > maxSize) {
      return err('validation_content_size_limit', 'The maximum allowed content size is {maxSize} bytes.', { maxSize });
    }
    return null;
  },
};
