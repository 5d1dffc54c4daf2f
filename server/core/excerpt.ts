// The `:excerpt(max, withEllipsis?)` fields modifier (PocketBase's): HTML to plain text, then cut
// to `max` characters. It runs over text clients write, so its cost must stay linear in the text. The
// former one-line version,
//   .replace(/<(script|style|...)\b[^>]*>[\s\S]*?<\/\1>/gi, ' ').replace(/<\/?(p|div|...)\b[^>]*>/gi, ' ')
//   .replace(/<[^>]*>/g, '')
// restarted `[^>]*` or `[\s\S]*?` at every `<` that had no match ahead: text full of `<` and no `>`
// took quadratic time. The passes below give the same output, pass by pass:
// - no match of any pass can end after the last `>`, so passes 2 and 3 run their (then linear)
//   expressions on the text up to the last `>` only;
// - pass 1 looks for each element's closing tag moving forward only, and drops a name once no
//   closing tag is left for it.

const SKIPPED = ['script', 'style', 'svg', 'img', 'iframe', 'noscript', 'select', 'textarea', 'button', 'object', 'video', 'audio'];
/** Where one of `names` may start (`\b`: the name is not the start of a longer word). */
const startsOf = (names: string[]) => new RegExp(`<(${names.join('|')})\\b`, 'gi');
const BLOCK_TAG = /<\/?(p|div|br|li|ul|ol|h[1-6]|tr|td|th|table|section|article|header|footer|blockquote|pre)\b[^>]*>/gi;
const ANY_TAG = /<[^>]*>/g;

/** `s.replace(re, by)` where every match of `re` ends with `>`: only the text up to the last `>` can match. */
function replaceTags(s: string, re: RegExp, by: string): string {
  const last = s.lastIndexOf('>');
  return last === -1 ? s : s.slice(0, last + 1).replace(re, by) + s.slice(last + 1);
}

/**
 * `find(from)` (the first match at or after `from`, or -1) for calls whose `from` never decreases: an
 * answer is reused until `from` passes it, so all the calls together read the text once.
 */
function forward(find: (from: number) => number): (from: number) => number {
  let found = -2;
  return (from) => {
    if (found !== -1 && found < from) found = find(from);
    return found;
  };
}

/** The first `</name>` at or after `from`, letters in any case (as the former back-reference under `i`). */
function closingTag(s: string, name: string): (from: number) => number {
  const re = new RegExp(`</${name}>`, 'gi');
  return forward((from) => {
    re.lastIndex = from;
    return re.exec(s)?.index ?? -1;
  });
}

/**
 * Pass 1: `<name ...>` up to the first `</name>` after it, for a skipped element → one space. A name
 * with no closing tag left never matches again, so it leaves the search (an opening tag repeated a
 * million times costs one look for its closing tag).
 */
function dropSkipped(s: string, unclosed?: { seen: boolean }): string {
  const last = s.lastIndexOf('>');
  if (last === -1) return s;
  const nextGt = forward((from) => s.indexOf('>', from));
  const closers = new Map<string, (from: number) => number>();
  let alive = SKIPPED;
  let starts = startsOf(alive);
  let out = '';
  let copied = 0;
  for (let m = starts.exec(s); m !== null && m.index < last; m = starts.exec(s)) {
    const name = m[1].toLowerCase();
    let closer = closers.get(name);
    if (!closer) closers.set(name, (closer = closingTag(s, name)));
    const close = closer(nextGt(m.index) + 1);
    if (close === -1) {
      if (unclosed) unclosed.seen = true;
      alive = alive.filter((n) => n !== name);
      if (alive.length === 0) break;
      const at = starts.lastIndex;
      starts = startsOf(alive);
      starts.lastIndex = at;
      continue;
    }
    out += `${s.slice(copied, m.index)} `;
    copied = close + name.length + 3;
    starts.lastIndex = copied;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/**
 * The words of `text` (maximal runs of non-whitespace) joined by single spaces, as `/\s+/g` → ' ' and
 * trim() would make them, but only as far as the first `max` characters: the rest is never built.
 */
function collapseAndCut(text: string, max: number, ellipsis: boolean, cut?: { seen: boolean }): string {
  const words = /\S+/g;
  let out = '';
  let chars = 0;
  for (let m = words.exec(text); m !== null; m = words.exec(text)) {
    const word = m[0];
    const sep = out === '' ? '' : ' ';
    const n = runeCount(word, max + 1);
    if (chars + sep.length + n > max) {
      const room = max - chars;
      if (cut) cut.seen = true;
      return out + (room > 0 ? sep : '') + firstRunes(word, room - sep.length) + (ellipsis ? '...' : '');
    }
    out += sep + word;
    chars += sep.length + n;
  }
  return out;
}

/** Code points in `s`, counting no further than `stop`. */
function runeCount(s: string, stop: number): number {
  let n = 0;
  for (const _ of s) if (++n >= stop) break;
  return n;
}

/** The first `n` code points of `s` (none when n <= 0). */
function firstRunes(s: string, n: number): string {
  let units = 0;
  let count = 0;
  for (const ch of s) {
    if (count === n) break;
    units += ch.length;
    count++;
  }
  return n <= 0 ? '' : s.slice(0, units);
}

/** Characters of a text's beginning an excerpt first tries, beyond four per character asked for. */
const HEAD = 4096;

/**
 * The first `max` characters of the value's text (`...` appended when cut and asked for). The passes run
 * on the text's beginning first, up to a `>`: when no skipped element is left open there, no `<` is left
 * in its visible text (a `<` whose tag would end further on), and that text already passes `max`
 * characters, the rest cannot change the answer (every match of the passes that starts in the beginning
 * also ends in it, and collapsing whitespace keeps a prefix a prefix), so a 5 MB text costs what its
 * first few kilobytes do. Otherwise the whole text is read.
 */
export function excerpt(value: unknown, max: number, ellipsis: boolean): unknown {
  if (typeof value !== 'string') return value;
  const window = HEAD + 4 * max;
  if (value.length > window) {
    const end = value.lastIndexOf('>', window) + 1;
    if (end > 0) {
      const unclosed = { seen: false };
      const visible = visibleText(value.slice(0, end), unclosed);
      if (!unclosed.seen && !visible.includes('<')) {
        const cut = { seen: false };
        const head = collapseAndCut(visible, max, ellipsis, cut);
        if (cut.seen) return head;
      }
    }
  }
  return collapseAndCut(visibleText(value), max, ellipsis);
}

function visibleText(html: string, unclosed?: { seen: boolean }): string {
  return replaceTags(replaceTags(dropSkipped(html, unclosed), BLOCK_TAG, ' '), ANY_TAG, '');
}
