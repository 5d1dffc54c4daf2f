// Reads a zip in memory for the tests (yauzl): entry name → bytes.
import yauzl from 'yauzl';

export function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const out = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** A zip made of the given entries (yazl), for hostile archives; a third item is the entry's mode (0o120777: a symbolic link). */
export async function zipOf(entries: [string, Buffer | string, number?][]): Promise<Buffer> {
  const yazl = (await import('yazl')).default;
  const zip = new yazl.ZipFile();
  for (const [name, data, mode] of entries) zip.addBuffer(Buffer.from(data), name, mode === undefined ? {} : { mode });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
