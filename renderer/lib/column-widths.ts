// Column widths of the records grid, by field type. The grid uses a fixed table layout: widths come from
// here instead of from measuring every cell of every row (the auto layout of a large page was most
// of the time it took to show), and they stay put while rows scroll in and out.
import type { Field } from '../api.js';

const BY_TYPE: Record<string, number> = {
  number: 110, bool: 100, date: 210, autodate: 210, select: 190, relation: 190, json: 230, geoPoint: 170,
  email: 230, url: 230, editor: 280, text: 240, file: 190, password: 120,
};

export const SELECT_COLUMN = 44;

export function columnWidth(f: Field): number {
  if (f.type === 'text' && f.name === 'id') return 160;
  return BY_TYPE[f.type] ?? 200;
}
