// Every field type's UI, keyed by type: a missing type fails to compile (mirrors FIELD_SPECS on the server).
import type { Component } from 'solid-js';
import type { FieldType } from '../../server/model/types.js';
import type { FieldUi, InputProps, OptionsProps } from './types.js';
import { textUi } from './text.js';
import { editorUi } from './editor.js';
import { numberUi } from './number.js';
import { boolUi } from './bool.js';
import { emailUi } from './email.js';
import { urlUi } from './url.js';
import { dateUi } from './date.js';
import { autodateUi } from './autodate.js';
import { selectUi } from './select.js';
import { relationUi } from './relation.js';
import { jsonUi } from './json.js';
import { passwordUi } from './password.js';
import { geoPointUi } from './geo-point.js';
import { fileUi } from './file.js';

export const FIELD_UI: { [K in FieldType]: FieldUi<K> } = {
  text: textUi,
  editor: editorUi,
  number: numberUi,
  bool: boolUi,
  email: emailUi,
  url: urlUi,
  date: dateUi,
  autodate: autodateUi,
  select: selectUi,
  relation: relationUi,
  json: jsonUi,
  password: passwordUi,
  geoPoint: geoPointUi,
  file: fileUi,
};

export const FIELD_TYPE_ORDER: FieldType[] = ['text', 'editor', 'number', 'bool', 'email', 'url', 'date', 'autodate', 'select', 'relation', 'file', 'json', 'password', 'geoPoint'];

/** The UI of a field whose type is only known at run time (one cast instead of one per call site). */
export function uiOf(type: FieldType): FieldUi<FieldType> {
  return FIELD_UI[type] as unknown as FieldUi<FieldType>;
}

export function inputOf(type: FieldType): Component<InputProps<FieldType>> {
  return uiOf(type).Input;
}

export function optionsOf(type: FieldType): Component<OptionsProps<FieldType>> | undefined {
  return uiOf(type).Options;
}
