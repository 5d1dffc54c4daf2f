// The contract each field type's UI implements, one file per type (fields/<type>.tsx), mirroring
// server/core/fields: an input for record forms and an options editor for the collection's schema.
import type { Component } from 'solid-js';
import type { Api, Collection, RecordModel } from '../api.js';
import type { FieldOf, FieldType } from '../../server/model/types.js';

export interface FieldCtx {
  api: Api;
  collections: () => Collection[];
  isNew: boolean;
  /** The record being edited (with `expand` of its relations), if any. */
  record?: RecordModel;
  /** Sets a body key that is not a field (`passwordConfirm`). */
  setExtra(key: string, value: unknown): void;
  /** True once a save was tried: inputs then show what they held back while the user was typing. */
  attempted(): boolean;
  /** The server's message for a body key of this record (`passwordConfirm`), if it gave one. */
  serverError(key: string): string | undefined;
  /**
   * Opens a form for a new record of `collectionId` above this one and resolves with the saved record
   * (null if cancelled). Set by the record panel; absent elsewhere.
   */
  createRecord?(collectionId: string): Promise<RecordModel | null>;
  /** Marks this field's raw input as unusable (invalid JSON...) so the form refuses to save it. */
  setInvalid(fieldName: string, message: string | null): void;
}

export interface InputProps<K extends FieldType> {
  field: FieldOf<K>;
  value: unknown;
  onChange(value: unknown): void;
  /** DOM id of the main control, for the label. */
  id: string;
  error?: string;
  ctx: FieldCtx;
}

export interface OptionsProps<K extends FieldType> {
  field: FieldOf<K>;
  update(patch: Partial<FieldOf<K>>): void;
  /** The server's message for an option (`max`, `values`...) of this field, if any. */
  error(prop: string): string | undefined;
  collections: Collection[];
  locked: boolean;
  idPrefix: string;
}

/** Type-specific options of a new field (everything beyond the common props). */
export type FieldOptions<K extends FieldType> = Omit<FieldOf<K>, 'id' | 'name' | 'type' | 'system' | 'hidden' | 'presentable' | 'required' | 'help'>;

export interface FieldUi<K extends FieldType> {
  label: string;
  /** One or two characters shown in type badges. */
  glyph: string;
  description: string;
  defaults(): FieldOptions<K>;
  Input: Component<InputProps<K>>;
  Options?: Component<OptionsProps<K>>;
}
