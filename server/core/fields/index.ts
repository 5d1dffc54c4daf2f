// Every field type's spec, keyed by type so that a missing one fails to compile, and the two entry
// points everything else goes through: `specFor` (a field's spec) and `defineField` (a submitted field
// definition → the complete field).
import type { ErrorData } from '../../errors.js';
import type { Field, FieldType } from '../../model/types.js';
import { autodateSpec } from './autodate.js';
import { defineFieldBase, type FieldBaseOptions } from './base.js';
import { boolSpec } from './bool.js';
import { dateSpec } from './date.js';
import { editorSpec } from './editor.js';
import { emailSpec } from './email.js';
import { fileSpec } from './file.js';
import { geoPointSpec } from './geo-point.js';
import { jsonSpec } from './json.js';
import { numberSpec } from './number.js';
import { passwordSpec } from './password.js';
import { relationSpec } from './relation.js';
import { selectSpec } from './select.js';
import type { DefineContext, FieldSpec } from './spec.js';
import { textSpec } from './text.js';
import { urlSpec } from './url.js';

export const FIELD_SPECS: { [K in FieldType]: FieldSpec<K> } = {
  text: textSpec,
  editor: editorSpec,
  number: numberSpec,
  bool: boolSpec,
  email: emailSpec,
  url: urlSpec,
  date: dateSpec,
  autodate: autodateSpec,
  select: selectSpec,
  relation: relationSpec,
  json: jsonSpec,
  password: passwordSpec,
  geoPoint: geoPointSpec,
  file: fileSpec,
};

/** The spec of a field of any type (TypeScript cannot correlate `FIELD_SPECS[field.type]` with `field`). */
export function specFor(field: Field): FieldSpec<FieldType> {
  return FIELD_SPECS[field.type] as FieldSpec<FieldType>;
}

/**
 * A whole submitted field definition → the complete field, with the errors of the common props and of
 * the type's options keyed by prop (a common prop's error wins). The caller matches `previous` by id.
 */
export function defineField(
  input: unknown,
  index: number,
  ctx: DefineContext & FieldBaseOptions,
  previousById?: (id: string) => Field | undefined,
): { field: Field; errors: ErrorData } {
  const { base, errors: baseErrors } = defineFieldBase(input, index, ctx);
  const previous = ctx.previous ?? previousById?.(base.id);
  const raw = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const spec = FIELD_SPECS[base.type] as FieldSpec<FieldType>;
  const { field, errors } = spec.define(raw, base, { ...ctx, previous });
  return { field, errors: { ...errors, ...baseErrors } };
}
