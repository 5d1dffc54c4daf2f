// A whole PocketBase pb_data built here: the data.db of pocketbase-db.ts and its files as PocketBase
// lays them out (storage/<collectionId>/<recordId>/<name>, a thumbnail folder thumbs_<name>/ and the
// `.attrs` sidecars of its blob driver), and the same folder as PocketBase's Backups page downloads it:
// a zip of pb_data at its root, with auxiliary.db and an emptied data.db-wal (core/base_backup.go).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import yazl from 'yazl';
import { pocketBaseDb, type PocketBaseData } from './pocketbase-db.js';

export interface PocketBaseFile {
  /** PocketBase's collection id (its storage folder). */
  collection: string;
  record: string;
  name: string;
  bytes: Buffer;
}

export interface PocketBaseFolder extends PocketBaseData {
  /** Every file the records name, with its bytes. */
  files: PocketBaseFile[];
  /** `posts` file name → bytes, for checking what is served after the import. */
  byName: Map<string, Buffer>;
}

/** The data.db and the files its records name (a real PNG where thumbnails are asked for). */
export async function pocketBaseData(): Promise<PocketBaseFolder> {
  const pb = await pocketBaseDb();
  const png = (color: string) => sharp({ create: { width: 40, height: 30, channels: 3, background: color } }).png().toBuffer();
  const files: PocketBaseFile[] = [
    { collection: '_pb_users_auth_', record: 'adaada000000001', name: 'ada_q7w3e5r8t1.png', bytes: await png('#36c') },
    { collection: 'pbc_1125843985', record: 'post00000000001', name: 'cover_k3l9p0qz1a.png', bytes: await png('#c63') },
    { collection: 'pbc_1125843985', record: 'post00000000001', name: 'notes_8fj2k1l0qa.txt', bytes: Buffer.from('plain notes\n') },
    { collection: 'pbc_1125843985', record: 'post00000000001', name: 'photo_2b9x0c7v1m.jpg', bytes: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]) },
  ];
  return { ...pb, files, byName: new Map(files.map((f) => [f.name, f.bytes])) };
}

/** The entries of pb_data, by path; files named in `omit` are left out. */
function entries(pb: PocketBaseFolder, omit: readonly string[]): [string, Buffer][] {
  const out: [string, Buffer][] = [['data.db', Buffer.from(pb.bytes)], ['auxiliary.db', Buffer.from('PocketBase logs')]];
  for (const f of pb.files) {
    if (omit.includes(f.name)) continue;
    const dir = `storage/${f.collection}/${f.record}`;
    out.push([`${dir}/${f.name}`, f.bytes], [`${dir}/${f.name}.attrs`, Buffer.from('{"user.content_type":"application/octet-stream"}')]);
    out.push([`${dir}/thumbs_${f.name}/100x100_${f.name}`, Buffer.from('an old thumbnail')]);
  }
  return out;
}

/** Writes pb_data into `dir`. */
export async function writePocketBaseFolder(dir: string, pb: PocketBaseFolder, omit: readonly string[] = []): Promise<void> {
  for (const [path, bytes] of entries(pb, omit)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), bytes);
  }
}

export interface ZipOptions {
  /** File names left out. */
  omit?: readonly string[];
  /** Entries added as given. */
  extra?: [string, Buffer | string][];
  /** The WAL's bytes (a backup's is emptied by a checkpoint). */
  wal?: Buffer;
}

/** pb_data as a PocketBase backup zip. */
export async function pocketBaseZip(pb: PocketBaseFolder, options: ZipOptions = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(options.wal ?? Buffer.alloc(0), 'data.db-wal');
  for (const [name, bytes] of [...entries(pb, options.omit ?? []), ...(options.extra ?? [])]) zip.addBuffer(Buffer.from(bytes), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
