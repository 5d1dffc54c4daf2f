// One operand → a Value. Texts, numbers, placeholders, `true` / `false` / `null`, datetime macros and
// functions belong to the language; any other identifier is the resolver's.
import type { IdentifierOperand, Operand } from './ast.js';
import { FilterError, quote } from './filter-error.js';
import type { CompileScope } from './field-resolver.js';
import { resolveFunction } from './functions.js';
import { macroValue } from './macros.js';
import { fromJs, staticValue, type Value } from './values.js';

export function resolveOperand(scope: CompileScope, operand: Operand): Value {
  switch (operand.kind) {
    case 'text':
      return staticValue(datetimeLiteral(operand.value));
    case 'number':
      return staticValue(operand.value);
    case 'placeholder': {
      const params = scope.params;
      if (params === undefined || !Object.hasOwn(params, operand.name)) {
        throw new FilterError(`missing value for placeholder ${quote(`{:${operand.name}}`)}`, operand.pos);
      }
      return fromJs(params[operand.name]);
    }
    case 'function':
      return resolveFunction(operand, (arg) => resolveOperand(scope, arg), scope.dialect);
    case 'identifier':
      return resolveIdentifier(scope, operand);
  }
}

// PocketBase stores datetimes as `2024-01-02 10:00:00.000Z`, and its SDK's pb.filter() writes Dates
// that way. Ours are ISO 8601 with a `T`, which sorts above any such text of the same day, so
// `created >= "<an hour ago>"` would match the whole day. A text literal in exactly PocketBase's
// layout is read as the datetime it names, in our layout: date fields compare as they do in PocketBase.
const PB_DATETIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)Z?$/;

function datetimeLiteral(text: string): string {
  const m = PB_DATETIME.exec(text);
  if (!m) return text;
  const date = new Date(`${m[1]}T${m[2]}Z`);
  // not a real day (Date rolls 2024-02-30 over to March): keep the text as it is
  return Number.isNaN(date.getTime()) || !date.toISOString().startsWith(m[1]) ? text : date.toISOString();
}

// Field names `true`, `false` and `null` are forbidden, so these names are always literals.
const LITERALS: Record<string, number | null> = { true: 1, false: 0, null: null };

function resolveIdentifier(scope: CompileScope, operand: IdentifierOperand): Value {
  const literal = operand.name.toLowerCase();
  if (Object.hasOwn(LITERALS, literal)) return staticValue(LITERALS[literal]);
  if (operand.name.startsWith('@')) {
    const macro = macroValue(operand.name, scope.now);
    if (macro !== undefined) return staticValue(macro);
  }
  return scope.resolver.resolve(operand);
}
