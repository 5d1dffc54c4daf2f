// The one error type of the filter language. The parser and the compiler both throw it, always with the
// character offset of the token at fault, so the admin UI can point at it and rule validation can show
// `Invalid rule. Raw error: <message>`.

export class FilterError extends Error {
  /**
   * @param reason   what went wrong, without the position (`expected a sign operator`)
   * @param position 0-based offset into the source; the message says `at character <position + 1>`
   * @param found    the offending source text, if any (shown as `, got <found>`)
   */
  constructor(
    readonly reason: string,
    readonly position: number,
    readonly found?: string,
  ) {
    super(`${reason} at character ${position + 1}${found === undefined ? '' : `, got ${found}`}`);
    this.name = 'FilterError';
  }
}

/** Quotes a piece of source for an error message, cut short so a 1 MB literal cannot bloat the message. */
export function describeSource(text: string): string {
  if (text === '') return 'end of input';
  const short = text.length > 24 ? `${text.slice(0, 24)}…` : text;
  return JSON.stringify(short);
}

/** A name in an error message, in double quotes, cut short (identifiers can be as long as the input). */
export function quote(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}
