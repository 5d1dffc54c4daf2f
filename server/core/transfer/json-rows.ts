// The top-level items of a JSON array (and NDJSON's lines), each as its own text, found in one linear pass (strings and
// their escapes skipped, brackets counted), so a large import parses item by item between turns of the
// event loop instead of in one JSON.parse of the whole body.

/** Yields each item's text; throws where the text is not an array of complete items. */
export function* jsonArrayItems(text: string): Generator<string> {
  let i = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (text[i] !== '[') throw new Error('expected a JSON array');
  i = skipSpace(text, i + 1);
  if (text[i] === ']') return end(text, i);
  for (;;) {
    const start = i;
    let depth = 0;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (ch === '"') {
        i = closingQuote(text, i);
      } else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        if (depth === 0) break;
        depth--;
      } else if (ch === ',' && depth === 0) break;
    }
    if (i >= text.length) throw new Error('the JSON array is not closed');
    yield text.slice(start, i);
    if (text[i] === ']') return end(text, i);
    i = skipSpace(text, i + 1);
  }
}

function closingQuote(text: string, open: number): number {
  for (let j = open + 1; j < text.length; j++) {
    const ch = text[j];
    if (ch === '\\') j++;
    else if (ch === '"') return j;
  }
  throw new Error('unterminated string in the JSON array');
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

function end(text: string, close: number): void {
  if (skipSpace(text, close + 1) !== text.length) throw new Error('unexpected text after the JSON array');
}

/** The non-blank lines of NDJSON, one at a time (a split of 64 MiB of short lines would hold millions of strings at once). */
export function* ndjsonLines(text: string): Generator<string> {
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end === -1 ? text.length : end);
    if (line.trim() !== '') yield line;
    start = end === -1 ? text.length : end + 1;
  }
}
