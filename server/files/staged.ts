// An uploaded file received to a temporary file of the data folder, not yet part of any record: what a
// multipart body holds under a file field's key until a write places it (storage.ts).
import type { Sniffed } from './sniff.js';

export class StagedFile {
  constructor(
    /** Temporary path (under the data folder's upload-temp/), synced. */
    readonly tempPath: string,
    /** The name the client sent. */
    readonly originalName: string,
    /** The stored name: sanitized, with a random suffix (names.ts). */
    readonly name: string,
    readonly size: number,
    /** The type sniffed from the content. */
    readonly sniffed: Sniffed,
  ) {}

  toJSON(): string {
    return this.name;
  }
}

/** A file part that passed its field's maxSize: its bytes were not kept. */
export class OversizeFile {
  constructor(readonly originalName: string, readonly limit: number) {}

  toJSON(): string {
    return this.originalName;
  }
}

export const isStaged = (v: unknown): v is StagedFile => v instanceof StagedFile;
