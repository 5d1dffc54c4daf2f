// Splits an identifier into its dot-separated segments and its trailing `:modifier`. A `:` is allowed
// only there and in the `@collection.name:alias` segment.
import { FilterError, quote } from '../filter/filter-error.js';
import type { Site } from './scope.js';

export type Modifier = 'isset' | 'changed' | 'length' | 'each' | 'lower';

const MODIFIERS: ReadonlySet<string> = new Set<Modifier>(['isset', 'changed', 'length', 'each', 'lower']);

export interface Path {
  segments: string[];
  modifier: Modifier | null;
}

export function splitIdentifier(site: Site): Path {
  const segments = site.name.split('.');
  let modifier: Modifier | null = null;
  const last = segments[segments.length - 1];
  const colon = last.indexOf(':');
  if (colon !== -1 && !(segments.length === 2 && segments[0] === '@collection')) {
    const name = last.slice(colon + 1);
    if (!MODIFIERS.has(name)) throw new FilterError(`unknown modifier ${quote(`:${name}`)}`, site.pos);
    modifier = name as Modifier;
    segments[segments.length - 1] = last.slice(0, colon);
  }
  segments.forEach((segment, i) => {
    const aliasSegment = i === 1 && segments[0] === '@collection';
    if (segment === '' || (segment.includes(':') && !aliasSegment)) {
      throw new FilterError(`invalid identifier ${quote(site.name)}`, site.pos);
    }
  });
  return { segments, modifier };
}

/** `title:each` on a text field: the message names the identifier without its modifier. */
export function invalidModifier(site: Site, modifier: Modifier): FilterError {
  const suffix = `:${modifier}`;
  const name = site.name.endsWith(suffix) ? site.name.slice(0, -suffix.length) : site.name;
  return new FilterError(`invalid modifier ${quote(suffix)} for ${quote(name)}`, site.pos);
}
