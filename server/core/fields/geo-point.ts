// `geoPoint`: `{ lon, lat }` in degrees, stored as JSON; (0, 0) is the zero value and fails `required`.
import type { FieldBase, GeoPointField } from '../../model/types.js';
import { err, OptionReader, required, sortKeys, unsupportedType } from './common.js';
import { isRecord } from '../../json-object.js';
import type { FieldSpec } from './spec.js';

export interface GeoPoint {
  lon: number;
  lat: number;
}

const coordinate = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** An object, or JSON text of one; like Go's decoder, a member of the wrong type is left at 0. */
export function toGeoPoint(value: unknown): GeoPoint {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      v = null;
    }
  }
  return isRecord(v) ? { lon: coordinate(v.lon), lat: coordinate(v.lat) } : { lon: 0, lat: 0 };
}

function define(input: Record<string, unknown>, base: FieldBase) {
  const r = new OptionReader(input);
  const field: GeoPointField = sortKeys({ ...base, type: 'geoPoint' });
  return { field, errors: r.errors };
}

export const geoPointSpec: FieldSpec<'geoPoint'> = {
  type: 'geoPoint',
  define,
  column: () => `JSON DEFAULT '{"lon":0,"lat":0}' NOT NULL`,
  normalize: toGeoPoint,
  zero: () => ({ lon: 0, lat: 0 }),
  validate(value, field) {
    if (!isRecord(value) || typeof value.lon !== 'number' || typeof value.lat !== 'number') return unsupportedType();
    const { lon, lat } = value;
    if (lon === 0 && lat === 0) return field.required ? required() : null;
    if (!(lat >= -90 && lat <= 90)) return err('validation_invalid_latitude', 'Latitude must be between -90 and 90 degrees.');
    if (!(lon >= -180 && lon <= 180)) return err('validation_invalid_longitude', 'Longitude must be between -180 and 180 degrees.');
    return null;
  },
  toStored: (value) => {
    const p = toGeoPoint(value);
    return JSON.stringify({ lon: p.lon, lat: p.lat });
  },
  fromStored: toGeoPoint,
};
