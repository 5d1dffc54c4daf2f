// What a column header sorts by. A relation column shows the related record's label (its presentable
// field, else name/title/…), so it sorts by that through the API's relation paths (`author.name`), as a
// person reading the column expects; without a label field it sorts by the stored id.
import type { Collection, Field } from '../api.js';
import { displayField } from './format.js';

export function sortKeyOf(field: Field, findCollection: (id: string) => Collection | undefined): string {
  if (field.type !== 'relation') return field.name;
  const label = displayField(findCollection(field.collectionId));
  return label ? `${field.name}.${label.name}` : field.name;
}
