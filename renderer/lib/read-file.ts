// Picking a file to import (a schema file, records, a PocketBase data.db): the browser's own dialog,
// through a short-lived <input type=file>.

/** Lets the user pick a file and hands it over (null when they cancel). */
export function pickFile(accept: string, doc: Document = document): Promise<File | null> {
  return new Promise((resolve) => {
    const input = doc.createElement('input');
    input.type = 'file';
    input.accept = accept;
    input.style.display = 'none';
    input.addEventListener('change', () => {
      resolve(input.files?.[0] ?? null);
      input.remove();
    });
    input.addEventListener('cancel', () => {
      resolve(null);
      input.remove();
    });
    doc.body.appendChild(input);
    input.click();
  });
}
