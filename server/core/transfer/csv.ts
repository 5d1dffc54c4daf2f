// CSV as RFC 4180 writes it (fields quoted when they hold a comma, a quote, a line break or edge
// spaces; quotes doubled), read back the same way. Values that are not text (arrays, objects) are
// written as JSON, which the import reads back through each field's own normaliser.
//
// The one CSV formula policy (OWASP's CSV-injection advice: the file is opened by people in
// spreadsheets, not only by programs): a text cell a spreadsheet would run as a formula (starting
// with = + - @ tab or CR, after any quotes) is written with one leading `'`, which spreadsheets show
// as text, and the import takes exactly one leading `'` off such a cell. Quotes already there are
// counted in (`'=x` is written `''=x`), so the pair is reversible for every text. Numbers and
// booleans are never guarded: `-5` stays a number.

const FORMULA_TEXT = /^'*[=+\-@\t\r]/;
const GUARDED_TEXT = /^'+[=+\-@\t\r]/;

/** A text value as a CSV cell's text: with one leading `'` where a spreadsheet would run it. */
function guarded(text: string): string {
  return FORMULA_TEXT.test(text) ? `'${text}` : text;
}

/** A parsed CSV cell's text as the value it was exported from: the inverse of the export's guard. */
export function unguardCsvText(cell: string): string {
  return GUARDED_TEXT.test(cell) ? cell.slice(1) : cell;
}

export function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? guarded(value) : typeof value === 'object' ? JSON.stringify(value) : String(value);
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
