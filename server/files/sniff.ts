// What a file is, from its first bytes (never from the client's content type), with the extension
// PocketBase would give a name that has none. A table of the common signatures (as the mimetype
// library PocketBase uses starts with), then text kinds; anything else is application/octet-stream.
// (file-type, the maintained npm sniffer, needs Node 22 from its current major on.)

/** Bytes read from the start of a file to decide its type. */
export const SNIFF_BYTES = 4096;

export interface Sniffed {
  mime: string;
  ext: string;
}

type Test = (b: Buffer) => boolean;

const at = (offset: number, bytes: number[] | string): Test => {
  const sig = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
  return (b) => b.length >= offset + sig.length && b.subarray(offset, offset + sig.length).equals(sig);
};

const ftyp = (brands: string[]): Test => (b) => at(4, 'ftyp')(b) && brands.includes(b.subarray(8, 12).toString('latin1'));

const SIGNATURES: [Test, string, string][] = [
  [at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'image/png', '.png'],
  [at(0, [0xff, 0xd8, 0xff]), 'image/jpeg', '.jpg'],
  [(b) => at(0, 'GIF87a')(b) || at(0, 'GIF89a')(b), 'image/gif', '.gif'],
  [(b) => at(0, 'RIFF')(b) && at(8, 'WEBP')(b), 'image/webp', '.webp'],
  [(b) => at(0, 'RIFF')(b) && at(8, 'WAVE')(b), 'audio/wav', '.wav'],
  [(b) => at(0, 'RIFF')(b) && at(8, 'AVI ')(b), 'video/x-msvideo', '.avi'],
  [at(0, 'BM'), 'image/bmp', '.bmp'],
  [at(0, [0x00, 0x00, 0x01, 0x00]), 'image/x-icon', '.ico'],
  [(b) => at(0, [0x49, 0x49, 0x2a, 0x00])(b) || at(0, [0x4d, 0x4d, 0x00, 0x2a])(b), 'image/tiff', '.tiff'],
  [ftyp(['avif', 'avis']), 'image/avif', '.avif'],
  [ftyp(['heic', 'heix', 'mif1', 'msf1']), 'image/heic', '.heic'],
  [ftyp(['qt  ']), 'video/quicktime', '.mov'],
  [ftyp(['M4A ', 'M4B ']), 'audio/x-m4a', '.m4a'],
  [ftyp(['3gp4', '3gp5', '3gp6', '3g2a']), 'video/3gpp', '.3gp'],
  [at(4, 'ftyp'), 'video/mp4', '.mp4'],
  [at(0, [0x1a, 0x45, 0xdf, 0xa3]), 'video/webm', '.webm'],
  [at(0, 'OggS'), 'audio/ogg', '.ogg'],
  [at(0, 'fLaC'), 'audio/flac', '.flac'],
  [(b) => at(0, 'ID3')(b) || (b.length > 1 && b[0] === 0xff && (b[1] & 0xe0) === 0xe0 && (b[1] & 0x06) !== 0), 'audio/mpeg', '.mp3'],
  [at(0, '%PDF-'), 'application/pdf', '.pdf'],
  [at(0, [0x50, 0x4b, 0x03, 0x04]), 'application/zip', '.zip'],
  [at(0, [0x1f, 0x8b]), 'application/gzip', '.gz'],
  [at(0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]), 'application/x-7z-compressed', '.7z'],
  [at(0, 'Rar!'), 'application/x-rar-compressed', '.rar'],
  [at(0, [0x00, 0x61, 0x73, 0x6d]), 'application/wasm', '.wasm'],
  [at(0, 'SQLite format 3\0'), 'application/vnd.sqlite3', '.sqlite'],
];

function looksLikeText(b: Buffer): boolean {
  if (b.includes(0)) return false;
  // valid UTF-8 except for a character cut at the end of the sample
  const text = b.toString('utf8');
  const bad = text.indexOf('\uFFFD');
  return bad === -1 || bad >= text.length - 3;
}

function textKind(b: Buffer): Sniffed {
  const head = b.toString('utf8').replace(/^\uFEFF/, '').trimStart();
  const lower = head.slice(0, 1024).toLowerCase();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!doctype svg[^>]*>\s*)?<svg[\s>]/.test(lower)) return { mime: 'image/svg+xml', ext: '.svg' };
  if (/^(<!--[\s\S]*?-->\s*)*<(!doctype html|html|head|body|script|iframe|h1|div|table|p|a|style|title|b|br|font)[\s>]/.test(lower)) {
    return { mime: 'text/html; charset=utf-8', ext: '.html' };
  }
  if (lower.startsWith('<?xml')) return { mime: 'text/xml; charset=utf-8', ext: '.xml' };
  if ((head.startsWith('{') || head.startsWith('[')) && looksLikeJson(head)) return { mime: 'application/json', ext: '.json' };
  return { mime: 'text/plain; charset=utf-8', ext: '.txt' };
}

function looksLikeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    // a sample cut short of the end: JSON when it opens like an object or array of values
    return /^[[{]\s*("|\d|-|\[|\{|true|false|null|[\]}])/.test(text);
  }
}

export function sniff(head: Buffer): Sniffed {
  for (const [test, mime, ext] of SIGNATURES) if (test(head)) return { mime, ext };
  if (head.length > 0 && looksLikeText(head)) return textKind(head);
  return { mime: 'application/octet-stream', ext: '' };
}

/** The media type without parameters, lower case (`text/plain`). */
export const baseMime = (mime: string): string => mime.split(';', 1)[0].trim().toLowerCase();
