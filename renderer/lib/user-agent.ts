// "Chrome on Linux" from a User-Agent header: enough to tell one's devices apart, no library needed.
export function describeUserAgent(ua: string): string {
  if (!ua) return 'Unknown client';
  const browser =
    /Electron\//.test(ua) ? 'Deskbase desktop'
    : /Edg\//.test(ua) ? 'Edge'
    : /OPR\//.test(ua) ? 'Opera'
    : /HeadlessChrome\//.test(ua) ? 'Headless Chrome'
    : /Chrome\//.test(ua) ? 'Chrome'
    : /Firefox\//.test(ua) ? 'Firefox'
    : /Safari\//.test(ua) ? 'Safari'
    : /^curl\//.test(ua) ? 'curl'
    : /^node|undici/i.test(ua) ? 'Node.js'
    : undefined;
  const os =
    /Windows/.test(ua) ? 'Windows'
    : /iPhone|iPad/.test(ua) ? 'iOS'
    : /Mac OS X|Macintosh/.test(ua) ? 'macOS'
    : /Android/.test(ua) ? 'Android'
    : /Linux|X11/.test(ua) ? 'Linux'
    : undefined;
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? ua.slice(0, 60);
}
