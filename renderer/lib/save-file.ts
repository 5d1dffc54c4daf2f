// Saving a file the app fetched itself (with the bearer token, so a plain link would not do): the
// browser's own download through an object URL and <a download>. In the desktop window Electron
// turns the same click into its save dialog.

/** The file name a Content-Disposition header suggests (`filename*=UTF-8''…` wins over `filename=`). */
export function filenameFromDisposition(header: string | null): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (star) {
    try {
      return safeName(decodeURIComponent(star[1].trim()));
    } catch {
      // A malformed escape: fall back to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;]+))/.exec(header);
  const name = plain?.[1] ?? plain?.[2]?.trim();
  return name ? safeName(name) : undefined;
}

/** Only the last path segment: a header must not pick the folder the file lands in. */
function safeName(name: string): string | undefined {
  const base = name.split(/[\\/]/).pop()?.trim();
  return base ? base : undefined;
}

/** How long the object URL stays valid: Electron may keep its save dialog open before it reads the blob. */
const REVOKE_AFTER_MS = 60_000;

export function saveBlob(blob: Blob, filename: string, doc: Document = document): void {
  const url = URL.createObjectURL(blob);
  const a = doc.createElement('a');
  a.href = url;
  a.download = filename;
  a.style.display = 'none';
  doc.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
