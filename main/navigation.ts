// Where the window may go: pages of our own server stay in it; other web pages open in the system
// browser; every other scheme (file:, javascript:, custom protocols) goes nowhere.
export type NavigationVerdict = 'allow' | 'external' | 'deny';

export function judgeNavigation(target: string, origin: string): NavigationVerdict {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'deny';
  }
  if (url.origin === new URL(origin).origin) return 'allow';
  return url.protocol === 'http:' || url.protocol === 'https:' ? 'external' : 'deny';
}

/** Permissions the Admin UI may get: writing the clipboard (its copy buttons); camera, location... never. */
const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

export function allowPermission(permission: string, requestingUrl: string, origin: string): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && judgeNavigation(requestingUrl, origin) === 'allow';
}
