// `file`: names of files stored in `storage/<collectionId>/<recordId>/` (PocketBase's core/field_file.go).
// A value holds stored names (strings) and new uploads (StagedFile, from a multipart body) until the
// write places the uploads and stores their names. Plain names a client sends must already be stored
// on the record (`validation_invalid_file`): nobody can point a record at another record's files.
import { baseMime } from '../../files/sniff.js';
import { OversizeFile, StagedFile } from '../../files/staged.js';
import type { ErrorData } from '../../errors.js';
import type { FieldBase, FileField } from '../../model/types.js';
import { toUniqueStrings } from './casts.js';
import { checkIntRange, err, OptionReader, required, sortKeys, unsupportedType } from './common.js';
import { isMulti, multiColumn, multiFromStored, multiToStored, multiZero } from './multi-value.js';
import type { FieldSpec, ModifierOp } from './spec.js';

export const DEFAULT_FILE_MAX_SIZE = 5 << 20;
/** PocketBase's ThumbSizeRegex: WxH, WxHt, WxHb, WxHf, 0xH, Wx0. */
export const THUMB_SIZE = /^(\d+)x(\d+)(t|b|f)?$/;
/** Always allowed, as PocketBase's defaultThumbSizes (the admin UI's previews). */
export const DEFAULT_THUMBS = ['100x100'];

export type FileItem = string | StagedFile | OversizeFile;

export const effectiveMaxSize = (f: FileField): number => (f.maxSize > 0 ? f.maxSize : DEFAULT_FILE_MAX_SIZE);
export const effectiveMaxSelect = (f: FileField): number => Math.max(f.maxSelect, 1);
/** Whether the field takes a file of the sniffed type `mime` (any, without `mimeTypes`). */
export const takesMime = (f: FileField, mime: string): boolean => f.mimeTypes.length === 0 || f.mimeTypes.map(baseMime).includes(baseMime(mime));

const itemName = (item: FileItem): string => (typeof item === 'string' ? item : item instanceof StagedFile ? item.name : item.originalName);

/** Any submitted value → the list of names and uploads, unique by name, in order (toSliceValue). */
export function fileItems(value: unknown): FileItem[] {
  const raw: FileItem[] = [];
  const add = (v: unknown) => {
    if (v instanceof StagedFile || v instanceof OversizeFile) raw.push(v);
    else raw.push(...toUniqueStrings(v));
  };
  if (Array.isArray(value)) for (const v of value) add(v);
  else if (value !== null && value !== undefined) add(value);
  const seen = new Set<string>();
  return raw.filter((item) => {
    const name = itemName(item);
    if (seen.has(name)) return false;
    seen.add(name);
    return true;
  });
}

/** The names a value stores (uploads by their stored names). */
export const fileNames = (value: unknown): string[] => fileItems(value).map(itemName);

/** The uploads in a value. */
export const uploadsOf = (value: unknown): StagedFile[] => fileItems(value).filter((i): i is StagedFile => i instanceof StagedFile);

function normalize(value: unknown, field: FileField): FileItem | FileItem[] {
  const items = fileItems(value);
  if (isMulti(field)) return items;
  return items.length > 0 ? items[items.length - 1] : '';
}

function define(input: Record<string, unknown>, base: FieldBase) {
  const r = new OptionReader(input);
  const field: FileField = sortKeys({
    ...base,
    type: 'file',
    maxSelect: r.int('maxSelect', 1),
    maxSize: r.int('maxSize'),
    mimeTypes: r.stringList('mimeTypes'),
    thumbs: r.stringList('thumbs'),
    protected: r.bool('protected'),
  });
  checkIntRange(r, 'maxSelect', field.maxSelect, 0);
  checkIntRange(r, 'maxSize', field.maxSize, 0);
  if (field.maxSelect < 0) r.fail('maxSelect', err('validation_min_greater_equal_than_required', 'Must be no less than 0.', { threshold: 0 }));
  const thumbErrors: ErrorData = {};
  field.thumbs.forEach((t, i) => {
    if (/^0x0[tbf]?$/.test(t)) thumbErrors[i] = err('validation_not_in_invalid', 'Must not be in list.');
    else if (!THUMB_SIZE.test(t)) thumbErrors[i] = err('validation_match_invalid', 'Must be in a valid format.');
  });
  if (Object.keys(thumbErrors).length > 0) r.fail('thumbs', thumbErrors);
  return { field, errors: r.errors };
}

export const fileSpec: FieldSpec<'file'> = {
  type: 'file',
  define,
  column: multiColumn,
  normalize,
  zero: multiZero,
  validate(value, field, ctx) {
    if (typeof value !== 'string' && !Array.isArray(value) && !(value instanceof StagedFile) && !(value instanceof OversizeFile)) return unsupportedType();
    const items = fileItems(value);
    if (items.length === 0) return field.required ? required() : null;
    const stored = new Set(ctx.current ? fileNames(ctx.current[field.name]) : []);
    const invalid = items.filter((i): i is string => typeof i === 'string' && !stored.has(i)).map((s) => s.slice(0, 250));
    if (invalid.length > 0) return err('validation_invalid_file', 'Invalid new files: {invalidFiles}.', { invalidFiles: invalid });
    const maxSelect = effectiveMaxSelect(field);
    if (items.length > maxSelect) return err('validation_too_many_files', 'The maximum allowed files is {maxSelect}', { maxSelect });
    const maxSize = effectiveMaxSize(field);
    for (const item of items) {
      if (typeof item === 'string') continue;
      if (item instanceof OversizeFile || item.size > maxSize) {
        return err('validation_file_size_limit', 'Failed to upload {file} - the maximum allowed file size is {maxSize} bytes.', { file: item.originalName, maxSize });
      }
      if (!takesMime(field, item.sniffed.mime)) {
        return err('validation_invalid_mime_type', '"{file}" mime type must be one of: {types}.', { file: item.originalName, types: field.mimeTypes.join(', ') });
      }
    }
    return null;
  },
  toStored: (value, field) => multiToStored(fileNames(value), field),
  fromStored: multiFromStored,
  modify(current: unknown, op: ModifierOp, operand: unknown, field: FileField) {
    const now = fileItems(current);
    const given = fileItems(operand);
    if (op === 'append') return normalize([...now, ...given], field);
    if (op === 'prepend') return normalize([...given, ...now], field);
    if (op === 'remove') {
      const drop = new Set(given.map(itemName));
      return normalize(now.filter((i) => !drop.has(itemName(i))), field);
    }
    return normalize(now, field);
  },
};
