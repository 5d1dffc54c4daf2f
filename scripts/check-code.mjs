// `npm run check`: the type check (`tsc --noEmit`) and ESLint (`eslint .`) on one TypeScript program.
// ESLint's type-aware rules need the program `tsc` builds and checks; run apart, each built and checked
// it on its own (tsc 58 CPU-s, ESLint 110 here); here the program is built once, its diagnostics are
// tsc's, and ESLint is handed it (typescript-eslint's `parserOptions.programs`): 109 CPU-s for both.
// The same config files decide (tsconfig.json, eslint.config.js); `npm run typecheck` and `npm run lint`
// remain for one of them alone. Exits 1 on any type error or lint error (warnings are printed only).
import ts from 'typescript';
import { ESLint } from 'eslint';

const started = Date.now();
const root = process.cwd();

const configFile = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
if (!configFile) throw new Error(`no tsconfig.json in ${root}`);
const config = ts.getParsedCommandLineOfConfigFile(configFile, {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  },
});
if (!config) throw new Error(`could not read ${configFile}`);
// parent pointers set, as typescript-eslint's own program (createProgramFromConfigFile)
const host = ts.createCompilerHost(config.options, true);
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host, projectReferences: config.projectReferences });

const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program)];
if (diagnostics.length > 0) {
  const formatHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost));
}
const typeErrors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
process.stdout.write(`type check: ${typeErrors === 0 ? 'ok' : `${typeErrors} error(s)`} (${program.getRootFileNames().length} files)\n`);

// the TypeScript files from the program; the JavaScript ones (not in tsconfig.json) as eslint.config.js says
const eslint = new ESLint({
  overrideConfig: [{ files: ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'], languageOptions: { parserOptions: { programs: [program], project: null } } }],
});
const results = await eslint.lintFiles(['.']);
const lintErrors = results.reduce((n, r) => n + r.errorCount, 0);
const warnings = results.reduce((n, r) => n + r.warningCount, 0);
const text = await (await eslint.loadFormatter('stylish')).format(results);
if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
process.stdout.write(`lint: ${lintErrors === 0 ? 'ok' : `${lintErrors} error(s)`}${warnings > 0 ? `, ${warnings} warning(s)` : ''} (${results.length} files); ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
process.exit(typeErrors === 0 && lintErrors === 0 ? 0 : 1);
