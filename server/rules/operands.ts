// One operand → a Value: literals, placeholders, functions, macros, `@request.*`, `@collection.*` and
// record paths.
import type { IdentifierOperand, Operand } from '../filter/ast.js';
import { FilterError, quote } from '../filter/errors.js';
import { resolveFunction } from './functions.js';
import { splitIdentifier } from './identifiers.js';
import { macroValue } from './macros.js';
import { resolveRecordPath } from './record-paths.js';
import { resolveCollection, resolveRequest } from './request-paths.js';
import type { State } from './state.js';
import { fromJs, staticValue, type Value } from './values.js';

export function resolveOperand(state: State, operand: Operand): Value {
  switch (operand.kind) {
    case 'text':
    case 'number':
      return staticValue(operand.value);
    case 'placeholder': {
      const params = state.ctx.params;
      if (params === undefined || !Object.hasOwn(params, operand.name)) {
        throw new FilterError(`missing value for placeholder ${quote(`{:${operand.name}}`)}`, operand.pos);
      }
      return fromJs(params[operand.name]);
    }
    case 'function':
      return resolveFunction(operand, (arg) => resolveOperand(state, arg));
    case 'identifier':
      return resolveIdentifier(state, operand);
  }
}

// Field names `true`, `false` and `null` are forbidden, so these names are always literals.
const LITERALS: Record<string, number | null> = { true: 1, false: 0, null: null };

function resolveIdentifier(state: State, operand: IdentifierOperand): Value {
  const where = { name: operand.name, pos: operand.pos };
  const literal = operand.name.toLowerCase();
  if (Object.hasOwn(LITERALS, literal)) return staticValue(LITERALS[literal]);
  if (operand.name.startsWith('@')) {
    const macro = macroValue(operand.name, state.now);
    if (macro !== undefined) return staticValue(macro);
  }
  const path = splitIdentifier(where);
  if (path.segments[0] === '@request') return resolveRequest(state, path, where);
  if (path.segments[0] === '@collection') return resolveCollection(state, path, where);
  if (operand.name.startsWith('@') || operand.name.startsWith('#')) {
    throw new FilterError(`unknown identifier ${quote(operand.name)}`, operand.pos);
  }
  const ctx = state.ctx;
  return resolveRecordPath(state, { collection: ctx.collection, key: '', alias: ctx.alias, hops: [] }, path, where);
}
