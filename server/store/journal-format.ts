// The journal's on-disk format. The journal is a series of segment files `journal.<n>.log`; a
// checkpoint starts a new segment, so entries written while the snapshot is saved never share a file
// with entries the snapshot already holds.
//
//   segment := header entry*
//   header  := "DBJOURN1" u32be(baseSize / 2^32) u32be(baseSize % 2^32) u32be(baseCrc) u32be(crc of the 16 bytes before)
//   entry   := u32le(payloadLength) u32le(crc32(length bytes + payload)) payload
//
// The header names the snapshot (byte size and CRC-32 of data.db) the segment continues from: on start,
// replay begins at the first segment naming the snapshot on disk, whichever side of a crash the
// snapshot's rename landed on.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

/** Identifies a snapshot by content. The empty database (no data.db yet) is {size 0, crc 0}. */
export interface SnapshotId {
  size: number;
  crc: number;
}

export const EMPTY_SNAPSHOT: SnapshotId = { size: 0, crc: 0 };

const MAGIC = Buffer.from('DBJOURN1', 'latin1');
export const HEADER_SIZE = MAGIC.length + 16;
export const FRAME_OVERHEAD = 8;

export function snapshotId(bytes: Uint8Array | null): SnapshotId {
  return bytes === null ? EMPTY_SNAPSHOT : { size: bytes.length, crc: crc32(bytes) };
}

/** Bytes of a snapshot checksummed in one turn of the event loop. */
const CRC_SLICE = 8 * 1024 * 1024;

/**
 * snapshotId, with the checksum computed a slice per turn of the event loop: in one piece, the
 * checksum of a large database held every other request for most of a second.
 */
export async function snapshotIdInSlices(bytes: Uint8Array): Promise<SnapshotId> {
  let crc = 0;
  for (let at = 0; at < bytes.length; at += CRC_SLICE) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    crc = crc32(bytes.subarray(at, at + CRC_SLICE), crc);
  }
  return { size: bytes.length, crc };
}

/** A linear operator on CRC-32 values (32 columns over GF(2)) applied to `crc`. */
export function applyOperator(matrix: Uint32Array, crc: number): number {
  let sum = 0;
  for (let i = 0, vector = crc >>> 0; vector !== 0; i++, vector >>>= 1) if (vector & 1) sum ^= matrix[i];
  return sum >>> 0;
}

/**
 * The operator that moves a CRC-32 past `length` more bytes: crc(A + B) = applyOperator(op, crc(A)) ^
 * crc(B) for any B of that length. A snapshot written as it is copied (export.ts) is checksummed page
 * by page and combined with it.
 */
export function crc32Operator(length: number): Uint32Array {
  const columns = new Uint32Array(32);
  for (let i = 0; i < 32; i++) columns[i] = crc32Combine(2 ** i, 0, length);
  return columns;
}

/**
 * The CRC-32 of A followed by B, from crc(A), crc(B) and B's length (zlib's crc32_combine, which Node
 * does not expose).
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0;
  const times = applyOperator;
  const square = (into: Uint32Array, matrix: Uint32Array): void => {
    for (let n = 0; n < 32; n++) into[n] = times(matrix, matrix[n]);
  };
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320; // the operator of one zero bit
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row;
  square(even, odd); // two zero bits
  square(odd, even); // four zero bits
  let crc = crcA >>> 0;
  let length = lengthB;
  // one zero byte, then doubling: the operator of each bit of the length applied to crc(A)
  for (;;) {
    square(even, odd);
    if (length % 2 === 1) crc = times(even, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
    square(odd, even);
    if (length % 2 === 1) crc = times(odd, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
  }
  return (crc ^ crcB) >>> 0;
}

export function sameSnapshot(a: SnapshotId, b: SnapshotId): boolean {
  return a.size === b.size && a.crc === b.crc;
}

export function segmentPath(dir: string, seq: number): string {
  return join(dir, `journal.${seq}.log`);
}

export interface SegmentFile {
  seq: number;
  path: string;
}

/** The segment files of a data folder, oldest first. */
export async function listSegments(dir: string): Promise<SegmentFile[]> {
  const segments: SegmentFile[] = [];
  for (const name of await readdir(dir)) {
    const match = /^journal\.([1-9][0-9]{0,14})\.log$/.exec(name);
    if (match) segments.push({ seq: Number(match[1]), path: join(dir, name) });
  }
  return segments.sort((a, b) => a.seq - b.seq);
}

/** Names of the files recovery moved damaged journal bytes to (`journal.<n>.log.damaged-<time>`). */
export async function listKeptAside(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => /^journal\.[0-9]+\.log\.damaged-/.test(name)).sort();
}

export function encodeHeader(base: SnapshotId): Buffer {
  const header = Buffer.alloc(HEADER_SIZE);
  MAGIC.copy(header, 0);
  let pos = MAGIC.length;
  pos = header.writeUInt32BE(Math.floor(base.size / 2 ** 32), pos);
  pos = header.writeUInt32BE(base.size % 2 ** 32, pos);
  pos = header.writeUInt32BE(base.crc >>> 0, pos);
  header.writeUInt32BE(crc32(header.subarray(0, pos)), pos);
  return header;
}

/** The snapshot a segment continues from, or null when the header is missing or torn. */
export function decodeHeader(file: Buffer): SnapshotId | null {
  if (file.length < HEADER_SIZE || !file.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const body = HEADER_SIZE - 4;
  if (crc32(file.subarray(0, body)) !== file.readUInt32BE(body)) return null;
  const high = file.readUInt32BE(MAGIC.length);
  const low = file.readUInt32BE(MAGIC.length + 4);
  return { size: high * 2 ** 32 + low, crc: file.readUInt32BE(MAGIC.length + 8) };
}

export function frameEntry(payload: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_OVERHEAD + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload, crc32(frame.subarray(0, 4))), 4);
  frame.set(payload, FRAME_OVERHEAD);
  return frame;
}

/**
 * frameEntry of the payload made of `parts`, built CRC_SLICE bytes at a time with `pause()` between
 * slices: a 100k-row import's entry (70 MB) copied and checksummed in one piece held the event loop
 * for a large part of a second.
 */
export async function frameEntryInSlices(parts: readonly Uint8Array[], pause: () => Promise<void>): Promise<Buffer> {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const frame = Buffer.allocUnsafe(FRAME_OVERHEAD + length);
  frame.writeUInt32LE(length, 0);
  let crc = crc32(frame.subarray(0, 4));
  let at = FRAME_OVERHEAD;
  for (const part of parts) {
    for (let i = 0; i < part.length; i += CRC_SLICE) {
      const piece = part.subarray(i, i + CRC_SLICE);
      frame.set(piece, at);
      at += piece.length;
      crc = crc32(piece, crc);
      await pause();
    }
  }
  frame.writeUInt32LE(crc, 4);
  return frame;
}

export interface ScannedEntry {
  offset: number;
  payload: Buffer;
}

export interface ScanResult {
  entries: ScannedEntry[];
  /** Where the intact entries end: the next append goes here. */
  end: number;
  /**
   * Where the bytes that are not zeros end (at least `end`): past it the file holds only zeros, the
   * journal's preallocated room (journal.ts), a clean end. Above `end`: a torn or corrupt tail (or a
   * hole, then a later group's bytes) from `end` to here.
   */
  dataEnd: number;
}

/** Reads the entries after the header up to the first one whose length or checksum does not hold. */
export function scanEntries(file: Buffer): ScanResult {
  const entries: ScannedEntry[] = [];
  let pos = HEADER_SIZE;
  while (pos + FRAME_OVERHEAD <= file.length) {
    const length = file.readUInt32LE(pos);
    const end = pos + FRAME_OVERHEAD + length;
    if (length === 0 || end > file.length) break;
    const payload = file.subarray(pos + FRAME_OVERHEAD, end);
    if (crc32(payload, crc32(file.subarray(pos, pos + 4))) !== file.readUInt32LE(pos + 4)) break;
    entries.push({ offset: pos, payload });
    pos = end;
  }
  return { entries, end: pos, dataEnd: Math.max(pos, nonZeroEnd(file)) };
}

const ZEROS = Buffer.alloc(64 * 1024);

/** The end of the last byte of `file` that is not zero (0 when all are), compared a block at a time. */
export function nonZeroEnd(file: Buffer): number {
  let end = file.length;
  while (end > 0) {
    const start = Math.max(0, end - ZEROS.length);
    if (!file.subarray(start, end).equals(ZEROS.subarray(0, end - start))) break;
    end = start;
  }
  while (end > 0 && file[end - 1] === 0) end--;
  return end;
}

/** Deletes the segments before `seq` (a snapshot now holds their entries). */
export async function removeSegmentsBefore(dir: string, seq: number): Promise<void> {
  for (const segment of await listSegments(dir)) {
    if (segment.seq < seq) await rm(segment.path, { force: true });
  }
}
