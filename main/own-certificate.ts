// With HTTPS on (settings.https), the server presents the certificate Deskbase made for itself
// (server/http/certificate.ts); the desktop window, which has not installed that CA, accepts exactly that
// certificate and only on the server's own origin, through app 'certificate-error'. Any other site with a
// certificate error is refused as usual.

const body = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');

/**
 * True when `url` is on the server's `origin` and `presented` (Electron's certificate.data, PEM) is the
 * server's own certificate (`own`: the first certificate of DATA/tls/cert.pem; null when there is none).
 */
export function isOwnCertificate(url: string, presented: string, origin: string, own: string | null): boolean {
  if (!own) return false;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (target.origin !== new URL(origin).origin) return false;
  const first = own.slice(0, own.indexOf('-----END CERTIFICATE-----') + 25);
  return body(presented) !== '' && body(presented) === body(first);
}
