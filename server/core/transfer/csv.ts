// CSV as RFC 4180 writes it (fields quoted when they hold a comma, a quote, a line break or edge
// spaces; quotes doubled), read back the same way. Values that are not text (arrays, objects) are
// written as JSON, which the import reads back through each field's own normaliser.

export function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(values: unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** Parses CSV text into rows of cells. Throws with the 1-based line of an unterminated quote. */
export function* parseCsv(text: string): Generator<string[]> {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte order mark, as spreadsheets write them
  let line = 1;
  const n = text.length;
  while (i < n) {
    const row: string[] = [];
    for (;;) {
      let cell = '';
      if (text[i] === '"') {
        const start = line;
        i++;
        for (;;) {
          const q = text.indexOf('"', i);
          if (q < 0) throw new Error(`unterminated quoted field starting on line ${start}`);
          const part = text.slice(i, q);
          for (let k = part.indexOf('\n'); k >= 0; k = part.indexOf('\n', k + 1)) line++;
          cell += part;
          if (text[q + 1] === '"') {
            cell += '"';
            i = q + 2;
          } else {
            i = q + 1;
            break;
          }
        }
      } else {
        let j = i;
        while (j < n && text[j] !== ',' && text[j] !== '\n' && text[j] !== '\r') j++;
        cell = text.slice(i, j);
        i = j;
      }
      row.push(cell);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r') i++;
      if (text[i] === '\n') i++;
      line++;
      break;
    }
    if (!(row.length === 1 && row[0] === '')) yield row; // blank lines are skipped
  }
}
