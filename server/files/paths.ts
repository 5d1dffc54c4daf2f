// Where files live in the data folder: `storage/<collectionId>/<recordId>/<name>` (PocketBase's
// layout, so its storage folders import as they are), thumbnails in `thumbs_<name>/<size>_<name>`
// beside the file, uploads being received in `upload-temp/`.
import { join } from 'node:path';

export const STORAGE_DIR = 'storage';
export const TEMP_DIR = 'upload-temp';

/** One path segment a client or a stored value names: nothing that could climb out or hide. */
export function isSafeSegment(s: string): boolean {
  return s.length > 0 && s.length <= 255 && s !== '.' && s !== '..' && !/[/\\\0]/.test(s) && !s.startsWith('.');
}

export function collectionDir(root: string, collectionId: string): string {
  if (!isSafeSegment(collectionId)) throw new Error('unsafe storage path');
  return join(root, collectionId);
}

export function recordDir(root: string, collectionId: string, recordId: string): string {
  if (!isSafeSegment(collectionId) || !isSafeSegment(recordId)) throw new Error('unsafe storage path');
  return join(root, collectionId, recordId);
}

export function filePath(root: string, collectionId: string, recordId: string, name: string): string {
  if (!isSafeSegment(name)) throw new Error('unsafe file name');
  return join(recordDir(root, collectionId, recordId), name);
}

export const thumbsDirName = (name: string): string => `thumbs_${name}`;

export function thumbPath(root: string, collectionId: string, recordId: string, name: string, size: string): string {
  return join(recordDir(root, collectionId, recordId), thumbsDirName(name), `${size}_${name}`);
}
