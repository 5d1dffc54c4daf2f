// Stored file names as PocketBase makes them (tools/filesystem's normalizeName and tools/inflector's
// Snakecase): `<snake_case base>_<10 random a-z0-9><clean extension>`, so names are unguessable,
// unique within a record, safe as one path segment and what PocketBase users expect to see.
import { randomInt } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function randomSuffix(length = 10): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** The extension with its dot, double ones included (`.tar.gz`), as PocketBase's extractExtension. */
export function extractExtension(name: string): string {
  const primary = name.lastIndexOf('.');
  if (primary === -1) return '';
  const secondary = name.lastIndexOf('.', primary - 1);
  return secondary >= 0 ? name.slice(secondary) : name.slice(primary);
}

/** inflector.Snakecase: split at non-word ASCII characters and `_`, an `_` before an uppercase after a lowercase. */
export function snakecase(text: string): string {
  const words = text.split(/[^0-9A-Za-z]+/).filter((w) => w !== '');
  const out: string[] = [];
  for (const word of words) {
    let part = '';
    for (let i = 0; i < word.length; i++) {
      const c = word[i];
      const upper = c >= 'A' && c <= 'Z';
      const prevUpper = i > 0 && word[i - 1] >= 'A' && word[i - 1] <= 'Z';
      if (upper && i > 0 && !prevUpper) part += '_';
      part += c;
    }
    out.push(part);
  }
  return out.join('_').toLowerCase();
}

/**
 * A client's file name → the stored name. `detected` is the extension sniffed from the content
 * (`.png`), used when the name has none, as PocketBase does.
 */
export function normalizeFileName(original: string, detected: string): string {
  let name = original.length > 300 ? original.slice(original.length - 300) : original;
  name = name.replace(/[/\\]/g, '_');
  const originalExt = extractExtension(name);
  let ext = '.' + originalExt.replace(/[^\w.*\-+=#]+/g, '').replace(/^\.+|\.+$/g, '');
  if (ext === '.') ext = detected;
  if (ext.length > 20) ext = '.' + ext.slice(ext.length - 20).replace(/^\.+|\.+$/g, '');
  let base = snakecase(name.slice(0, name.length - originalExt.length).replace(/^\.+|\.+$/g, ''));
  if (base.length < 3) base += randomSuffix();
  else if (base.length > 100) base = base.slice(0, 100);
  return `${base}_${randomSuffix()}${ext}`;
}

/** A stored name is one plain path segment (PocketBase's looseFilenameRegex, at most 150 + suffix characters). */
export function isPlainFileName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && /^[^./\\][^/\\]*$/.test(name) && !name.includes('\0');
}
