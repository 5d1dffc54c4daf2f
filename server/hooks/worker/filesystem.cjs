'use strict';
// $filesystem (PocketBase's filesystem.File makers: fileFromPath, fileFromBytes, fileFromURL): a file a
// hook puts in a file field (`record.set("avatar", file)`) and saves. The file stays a description here
// (a path, the bytes, a URL); saved, it crosses as a marked value (HOOK_FILE_KEY) and the host receives it
// through the files layer's upload path under the field's maxSize (server/core/writes/hook-files.ts).
const fs = require('node:fs');
const path = require('node:path');

/** server/core/writes/hook-files.ts HOOK_FILE_KEY and HOOK_FILE_BYTES_MAX. */
const HOOK_FILE_KEY = '__deskbaseHookFile';
const HOOK_FILE_BYTES_MAX = 32 * 1024 * 1024;

class HookFile {
  constructor(source, originalName, size) {
    Object.defineProperty(this, '_source', { value: source, enumerable: false });
    this.originalName = String(originalName);
    // the stored name is made when it is saved (the record's field then holds it)
    this.name = this.originalName;
    this.size = size;
  }
  /** What crosses to the host (records are copied through JSON). */
  toJSON() {
    return { [HOOK_FILE_KEY]: this._source, originalName: this.originalName };
  }
}

function bytesOf(value) {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (value instanceof Uint8Array || Array.isArray(value) || value instanceof ArrayBuffer) return Buffer.from(value);
  throw new TypeError('$filesystem.fileFromBytes: the first argument must be bytes (an array, a Uint8Array or a string)');
}

function nameOfUrl(url) {
  try {
    const base = path.posix.basename(new URL(url).pathname);
    return base === '' || base === '/' ? 'file' : decodeURIComponent(base);
  } catch {
    return 'file';
  }
}

exports.HookFile = HookFile;

exports.install = (g, rt) => {
  g.$filesystem = {
    fileFromPath: (file) => {
      // relative to pb_hooks, as $os.readFile here
      const full = path.resolve(rt.dir, String(file));
      const info = fs.statSync(full);
      if (!info.isFile()) throw new Error(`$filesystem.fileFromPath: "${file}" is not a file`);
      return new HookFile({ kind: 'path', path: full }, path.basename(full), info.size);
    },
    fileFromBytes: (bytes, name) => {
      const buf = bytesOf(bytes);
      if (buf.length > HOOK_FILE_BYTES_MAX) throw new Error(`$filesystem.fileFromBytes: at most ${HOOK_FILE_BYTES_MAX} bytes (got ${buf.length})`);
      const n = String(name ?? '');
      if (n === '') throw new Error('$filesystem.fileFromBytes: the file needs a name');
      return new HookFile({ kind: 'bytes', base64: buf.toString('base64') }, n, buf.length);
    },
    fileFromURL: (url, secTimeout) => {
      const u = String(url ?? '');
      if (!/^https?:\/\//i.test(u)) throw new Error(`$filesystem.fileFromURL: only http and https URLs (got "${u.slice(0, 200)}")`);
      const timeout = Number(secTimeout) > 0 ? Number(secTimeout) : 120;
      // downloaded when the record is saved, under the field's maxSize (its size is known then)
      return new HookFile({ kind: 'url', url: u, timeout }, nameOfUrl(u), 0);
    },
    // a route's multipart file parts are refused (README), so there is no multipart header to make one from
    fileFromMultipart: () => {
      throw new Error('$filesystem.fileFromMultipart is not supported by Deskbase (a route\'s multipart file parts are refused)');
    },
  };
  // PocketBase before v0.23 spelled it fileFromUrl
  g.$filesystem.fileFromUrl = g.$filesystem.fileFromURL;
};
