// CSV as RFC 4180 writes it (fields quoted when they hold a comma, a quote, a line break or edge
// spaces; quotes doubled), read back by csv-parse under the same rules (a malformed quote or a record
// with another number of cells than the header is an error naming its record, never reread as text).
// Values that are not text (arrays, objects) are written as JSON, which the import reads back through
// each field's own normaliser.
//
// The one CSV formula policy (OWASP's CSV-injection advice: the file is opened by people in
// spreadsheets, not only by programs): a text cell a spreadsheet would run as a formula (starting
// with = + - @ tab or CR, after any quotes) is written with one leading `'`, which spreadsheets show
// as text, and the import takes exactly one leading `'` off such a cell. Quotes already there are
// counted in (`'=x` is written `''=x`), so the pair is reversible for every text. Numbers and
// booleans are never guarded: `-5` stays a number.

import { Readable } from 'node:stream';
import { CsvError, parse, type Options } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';

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

/** Where the CSV stops being CSV: `row` counts records from 0 (the header), `line` is the text's line. */
export class CsvFormatError extends Error {
  constructor(readonly row: number, readonly line: number, message: string) {
    super(message);
  }
}

// RFC 4180 strictly: a quote only opens a field or closes it (`"x"y` and `a"b` are errors, not text), every
// record has the header's number of cells; a byte order mark and blank lines are skipped
const OPTIONS: Options = { bom: true, skip_empty_lines: true, relax_column_count: false, relax_quotes: false };

/** csv-parse's error as the record it stopped at. */
function formatError(err: unknown): unknown {
  if (!(err instanceof CsvError)) return err;
  const info = err as CsvError & { records?: number; lines?: number };
  const row = typeof info.records === 'number' ? info.records : 0;
  const line = typeof info.lines === 'number' ? info.lines : 0;
  return new CsvFormatError(row, line, err.message);
}

/** A CSV text's records, read in one go (exports read back, tests). Throws a CsvFormatError. */
export function parseCsv(text: string): string[][] {
  try {
    return parseSync(text, OPTIONS) as string[][];
  } catch (err) {
    throw formatError(err);
  }
}

/** Text handed to the parser per turn of the event loop. */
const SLICE_CHARS = 256 * 1024;

async function* slices(text: string): AsyncGenerator<string> {
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + SLICE_CHARS);
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++; // never split a surrogate pair
    await new Promise((resolve) => setImmediate(resolve));
    yield text.slice(at, end);
    at = end;
  }
}

/**
 * A CSV text's records as they are parsed (csv-parse's stream), a slice of the text per turn of the
 * event loop, so one long cell cannot hold the loop either. Throws a CsvFormatError at the first record
 * that is not CSV or has another number of cells than the header.
 */
export async function* csvRecords(text: string): AsyncGenerator<string[]> {
  const parser = parse(OPTIONS);
  Readable.from(slices(text)).pipe(parser);
  try {
    for await (const record of parser) yield record as string[];
  } catch (err) {
    throw formatError(err);
  } finally {
    parser.destroy();
  }
}
