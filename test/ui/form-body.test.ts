// A record body with files becomes multipart as the PocketBase SDK sends it: kept names and new files
// under their key, every other value in one @jsonPayload part.
import { describe, expect, it } from 'vitest';
import { hasFiles, toFormData } from '../../renderer/lib/form-body.js';

describe('toFormData', () => {
  it('sends names and files under their key and the other values as JSON', async () => {
    const photo = new File(['x'], 'x.png', { type: 'image/png' });
    const body = { title: 'Hi', views: 3, photos: ['kept_abcdefghij.png', photo], tags: [] };
    expect(hasFiles(body)).toBe(true);
    expect(hasFiles({ title: 'Hi', photos: ['a.png'] })).toBe(false);
    const form = toFormData(body);
    const photos = form.getAll('photos');
    expect(photos[0]).toBe('kept_abcdefghij.png');
    expect((photos[1] as File).name).toBe('x.png');
    expect(JSON.parse(String(form.get('@jsonPayload')))).toEqual({ title: 'Hi', views: 3, tags: [] });
  });
});
