import type { FieldUi } from './types.js';

interface Point {
  lon: number;
  lat: number;
}

function asPoint(value: unknown): Point {
  if (typeof value === 'object' && value !== null) {
    const v = value as Record<string, unknown>;
    return { lon: typeof v.lon === 'number' ? v.lon : 0, lat: typeof v.lat === 'number' ? v.lat : 0 };
  }
  return { lon: 0, lat: 0 };
}

export const geoPointUi: FieldUi<'geoPoint'> = {
  label: 'Geo point',
  glyph: '⌖',
  description: 'A longitude/latitude pair.',
  defaults: () => ({}),
  Input: (props) => {
    const set = (key: keyof Point, raw: string) => props.onChange({ ...asPoint(props.value), [key]: raw === '' ? 0 : Number(raw) });
    return (
      <div class="input-row">
        <label class="inline-label">
          <span>Longitude</span>
          <input id={props.id} type="number" step="any" min="-180" max="180" value={asPoint(props.value).lon} onInput={(e) => set('lon', e.currentTarget.value)} />
        </label>
        <label class="inline-label">
          <span>Latitude</span>
          <input id={`${props.id}-lat`} type="number" step="any" min="-90" max="90" value={asPoint(props.value).lat} onInput={(e) => set('lat', e.currentTarget.value)} />
        </label>
      </div>
    );
  },
};
