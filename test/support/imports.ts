// The import graph of server/, main/ and renderer/ as the TypeScript parser reads the source, for the
// import-boundaries and import-cycles tests. Every kind of import counts: declarations, re-exports,
// `import('x')` calls (run time: the module is loaded when the call runs), `import('x').T` in types,
// and require(). Type-only means erased from the output: `import type`, `export type`, an import whose
// every name is marked `type`, and `import('x')` in a type position.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(import.meta.dirname, '../..');

export interface Import {
  spec: string;
  typeOnly: boolean;
  /** Repository-relative path without extension for a relative import, else null. */
  target: string | null;
}

export interface SourceFile {
  /** Repository-relative path with extension. */
  file: string;
  imports: Import[];
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...files(rel));
    else if (/\.(ts|tsx|cts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Whether an import declaration is erased: `import type`, or named imports that are all `type`. */
function erased(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (clause === undefined) return false; // `import './x.js'` runs the module
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return clause.name === undefined && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

/** The imports of a source text (exported for the tests of this reader). */
export function importsIn(file: string, src: string): Import[] {
  const out: Import[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    const target = spec.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.(js|ts|tsx|cjs|mjs)$/, '') : null;
    out.push({ spec, typeOnly, target });
  };
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, erased(node));
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, node.isTypeOnly);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      add(node.moduleReference.expression.text, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) add(node.argument.literal.text, true);
    else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, src, ts.ScriptTarget.Latest, false, kind));
  return out;
}

export function sourceFiles(): SourceFile[] {
  return [...files('server'), ...files('main'), ...files('renderer')].map((file) => ({ file, imports: importsIn(file, readFileSync(join(ROOT, file), 'utf8')) }));
}

/** The file an import's target names (`x` → `x.ts`, `x.tsx`, `x/index.ts`...), or null if none exists. */
export function resolveTarget(target: string): string | null {
  for (const ext of ['.ts', '.tsx', '.cts', '.mts', '/index.ts', '/index.tsx']) {
    if (existsSync(join(ROOT, target + ext))) return target + ext;
  }
  return null;
}
