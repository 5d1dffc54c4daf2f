// Filter functions: geoDistance(lonA, latA, lonB, latB) in km and strftime(format, time, modifiers...).
import type { FunctionOperand, Operand } from './ast.js';
import { SQLITE, type Dialect } from './dialect.js';
import { FilterError, quote } from './filter-error.js';
import { joinFrags, sql, type Frag } from './sql.js';
import type { JoinSet } from './joins.js';
import { operandOf, type Value } from './values.js';

type Resolve = (operand: Operand) => Value;

function argError(fn: FunctionOperand, reason: string, pos = fn.pos): FilterError {
  return new FilterError(`${fn.name}(): ${reason}`, pos);
}

export function resolveFunction(fn: FunctionOperand, resolve: Resolve, dialect: Dialect = SQLITE): Value {
  switch (fn.name) {
    case 'geoDistance':
      return geoDistance(fn, resolve, dialect);
    case 'strftime':
      return strftime(fn, resolve, dialect);
    default:
      throw new FilterError(`unknown function ${quote(fn.name)}`, fn.pos);
  }
}

/**
 * Great-circle distance in km (earth radius 6371, spherical law of cosines, clamped so rounding never
 * leaves acos' domain). Compared without the null fallback; on multi-valued arguments it means "at
 * least one", as in PocketBase.
 */
function geoDistance(fn: FunctionOperand, resolve: Resolve, dialect: Dialect): Value {
  if (fn.args.length !== 4) throw argError(fn, 'expects 4 arguments (lonA, latA, lonB, latB)');
  const args = fn.args.map((arg) => {
    if (arg.kind !== 'identifier' && arg.kind !== 'number') throw argError(fn, 'arguments must be fields or numbers', arg.pos);
    return resolve(arg);
  });
  return {
    kind: 'exact',
    type: 'number',
    multi: args.some((a) => a.multi),
    anyOnly: true,
    build: (joins: JoinSet) => {
      const [lonA, latA, lonB, latB] = args.map((a) => dialect.number(operandOf(a, a.build(joins))));
      const rad = (f: Frag) => sql`radians(${f})`;
      const cosine = sql`cos(${rad(latA)}) * cos(${rad(latB)}) * cos(${rad(lonB)} - ${rad(lonA)}) + sin(${rad(latA)}) * sin(${rad(latB)})`;
      return sql`(6371 * acos(${dialect.greatest(sql`-1.0`, dialect.least(sql`1.0`, cosine))}))`;
    },
  };
}

/** SQLite's strftime: a text format, a time value (text, number or field), then text modifiers. */
function strftime(fn: FunctionOperand, resolve: Resolve, dialect: Dialect): Value {
  const [format, time, ...modifiers] = fn.args;
  if (format?.kind !== 'text') throw argError(fn, 'the first argument must be a text format');
  if (time !== undefined && time.kind !== 'text' && time.kind !== 'number' && time.kind !== 'identifier') {
    throw argError(fn, 'the time value must be a text, a number or a field', time.pos);
  }
  const bad = modifiers.find((m) => m.kind !== 'text');
  if (bad !== undefined) throw argError(fn, 'modifiers must be texts', bad.pos);
  const args = fn.args.map(resolve);
  if (dialect.strftime !== undefined) {
    const build = dialect.strftime(format.value, modifiers.map((m) => (m as { value: string }).value));
    if (typeof build === 'string') throw argError(fn, build);
    const timeValue = args[1] as Value | undefined;
    return {
      kind: 'column',
      type: 'text',
      multi: timeValue?.multi === true,
      build: (joins: JoinSet) => build(timeValue === undefined ? undefined : operandOf(timeValue, timeValue.build(joins))),
    };
  }
  return {
    kind: 'column',
    type: 'text',
    multi: args.some((a) => a.multi),
    build: (joins: JoinSet) => sql`strftime(${joinFrags(args.map((a) => a.build(joins)), ', ')})`,
  };
}
