// A multipart body with one file part of `size` bytes, generated as it is sent (the client holds 1 MiB
// at a time): large uploads without a large file or buffer in the test (files/large-upload,
// postgres/files-measure). The bytes vary (not one repeated byte), so no layer can compress them away.
const MB = 1024 * 1024;

export function generatedUpload(field: string, size: number): { body: ReadableStream<Uint8Array>; type: string; length: number } {
  const boundary = '----deskbase-generated-upload';
  const head = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${field}"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(MB);
  for (let i = 0; i < MB; i++) chunk[i] = (i * 31) % 253;
  let sent = -1;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === -1) {
        controller.enqueue(head);
        sent = 0;
      } else if (sent < size) {
        const n = Math.min(MB, size - sent);
        controller.enqueue(n === MB ? chunk : chunk.subarray(0, n));
        sent += n;
      } else {
        controller.enqueue(tail);
        controller.close();
      }
    },
  });
  return { body, type: `multipart/form-data; boundary=${boundary}`, length: head.length + size + tail.length };
}
