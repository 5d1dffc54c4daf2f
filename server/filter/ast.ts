// The syntax tree of a filter or rule. As in PocketBase's fexpr there is no operator precedence in the
// tree: a group is a flat list of (join, item) pairs in source order, and the SQL compiler emits them in
// that order so SQLite's own precedence (AND before OR) applies. Every node keeps its 0-based source
// offset for error messages.

export type SignOp =
  | '=' | '!=' | '>' | '>=' | '<' | '<=' | '~' | '!~'
  | '?=' | '?!=' | '?>' | '?>=' | '?<' | '?<=' | '?~' | '?!~';

export const SIGN_OPS: readonly SignOp[] = [
  '=', '!=', '>', '>=', '<', '<=', '~', '!~', '?=', '?!=', '?>', '?>=', '?<', '?<=', '?~', '?!~',
];

export type JoinOp = '&&' | '||';

export interface IdentifierOperand { kind: 'identifier'; name: string; pos: number }
export interface TextOperand { kind: 'text'; value: string; pos: number }
export interface NumberOperand { kind: 'number'; value: number; pos: number }
/** `{:name}`: only when parsing server-side filters with bound values. */
export interface PlaceholderOperand { kind: 'placeholder'; name: string; pos: number }
export interface FunctionOperand { kind: 'function'; name: string; args: Operand[]; pos: number }

export type Operand = IdentifierOperand | TextOperand | NumberOperand | PlaceholderOperand | FunctionOperand;

export interface Expr { kind: 'expr'; left: Operand; op: SignOp; right: Operand; pos: number }

export interface Group { kind: 'group'; items: GroupItem[]; pos: number }

/** The join of the first item of a group is `&&` and carries no meaning. */
export interface GroupItem { join: JoinOp; node: Expr | Group }

/** `?=`, `?~`...: "at least one" on multi-valued paths. */
export function isAnyOp(op: SignOp): boolean {
  return op.startsWith('?');
}

/** The operator without its `?` prefix. */
export type BaseOp = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~' | '!~';

export function baseOp(op: SignOp): BaseOp {
  return (op.startsWith('?') ? op.slice(1) : op) as BaseOp;
}
