// A record body holding files becomes multipart, as the PocketBase SDK sends it: each key holding
// files sends its kept names and its new files under the key (the server keeps both, names first);
// every other value goes in one `@jsonPayload` part, so types survive (numbers, booleans, [] to clear).

export const isFile = (v: unknown): v is File => typeof File !== 'undefined' && v instanceof File;

export function hasFiles(body: Record<string, unknown>): boolean {
  return Object.values(body).some((v) => isFile(v) || (Array.isArray(v) && v.some(isFile)));
}

export function toFormData(body: Record<string, unknown>): FormData {
  const form = new FormData();
  const json: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const list = Array.isArray(value) ? value : [value];
    if (!list.some(isFile)) {
      json[key] = value;
      continue;
    }
    for (const item of list) form.append(key, isFile(item) ? item : String(item));
  }
  if (Object.keys(json).length > 0) form.append('@jsonPayload', JSON.stringify(json));
  return form;
}
