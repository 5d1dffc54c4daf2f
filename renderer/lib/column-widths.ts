// Column widths of the records grid, by field type. The grid uses a fixed table layout: widths come from
// here instead of from measuring every cell of every row (the auto layout of a large page was most
// of the time it took to show), and they stay put while rows scroll in and out.
import type { Field } from '../api.js';

const BY_TYPE: Record<string, number> = {
  number: 110, bool: 100, date: 210, autodate: 210, select: 190, relation: 190, json: 230, geoPoint: 170,
  email: 230, url: 230, editor: 280, text: 240, file: 190, password: 120,
};

export const SELECT_COLUMN = 44;

/**
 * The header's own need: the name in 12 px semibold (about 7.5 px a character, wider than the average
 * so capitals and w/m fit), the button's 28 px of padding and the sort mark's 16.
 */
export function headerWidth(name: string): number {
  return Math.ceil(name.length * 7.5 + 44);
}

/** The type's width, widened when the header would not fit in it ("emailVisibility" on a bool). */
export function columnWidth(f: Field): number {
  const byType = f.type === 'text' && f.name === 'id' ? 160 : (BY_TYPE[f.type] ?? 200);
  return Math.max(byType, headerWidth(f.name));
}
