// A small LRU of parse results, owned by whoever creates it (no module-level state): the server keeps
// one per app so the rules and filters it sees over and over are tokenised once.
import type { Group } from './ast.js';
import { parseFilter, type ParseOptions } from './parser.js';

export class ParseCache {
  private readonly entries = new Map<string, Group>();

  /** Sources longer than `maxSourceLength` are parsed every time rather than kept in memory. */
  constructor(
    private readonly max = 1000,
    private readonly maxSourceLength = 4096,
  ) {}

  /** Parses `src`, or returns the tree of an earlier identical parse. Errors are not cached. */
  parse(src: string, options: ParseOptions = {}): Group {
    const key = `${options.placeholders === true ? 'p' : '-'}${options.maxLength ?? ''}|${src}`;
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Refresh recency: Map iteration order is insertion order.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const tree = parseFilter(src, options);
    if (src.length > this.maxSourceLength) return tree;
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, tree);
    return tree;
  }

  get size(): number {
    return this.entries.size;
  }
}
