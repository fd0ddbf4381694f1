import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * `context.log` (and `trace`, `debug`, `info`, `warn`, `error`) of an
 * `InvocationContext` goes to the Functions host as it is: no redaction, no scrubbing, no log
 * schema, and the host's own severity. App code logs through the app's logger only. This is the
 * lint rule for it, with the type checker (a name check alone would miss `ctx.log` or a destructured
 * `{ log }`, and flag a logger called `context`).
 */
const ROOT = path.resolve(__dirname, '../..');
const LOG_METHODS = new Set(['log', 'trace', 'debug', 'info', 'warn', 'error']);

/** Every use of an `InvocationContext`'s log methods in `files` (`path:line: text`). */
function contextLogUses(program: ts.Program, files: readonly string[]): string[] {
  const checker = program.getTypeChecker();
  const isInvocationContext = (node: ts.Node): boolean => {
    const type = checker.getTypeAtLocation(node);
    const types = type.isUnion() ? type.types : [type];
    return types.some((member) => member.getSymbol()?.getName() === 'InvocationContext');
  };
  const found: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is not in the program`);
    const report = (node: ts.Node): void => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${path.relative(ROOT, file)}:${line + 1}: ${node.getText(source)}`);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) && LOG_METHODS.has(node.name.text) && isInvocationContext(node.expression)) report(node);
      if (ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression) && LOG_METHODS.has(node.argumentExpression.text) && isInvocationContext(node.expression)) report(node);
      if (ts.isObjectBindingPattern(node) && isInvocationContext(node)) {
        for (const element of node.elements) {
          const name = (element.propertyName ?? element.name).getText(source);
          if (LOG_METHODS.has(name)) report(element);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

function projectProgram(): { program: ts.Program; appFiles: string[] } {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.json did not parse');
  const appFiles = config.fileNames.filter((file) => /^(functions|shared)[/\\]/.test(path.relative(ROOT, file)));
  return { program: ts.createProgram({ rootNames: appFiles, options: { ...config.options, noEmit: true } }), appFiles };
}

describe('InvocationContext logging', () => {
  it('is used nowhere in functions/ or shared/', () => {
    const { program, appFiles } = projectProgram();
    expect(appFiles.length).toBeGreaterThan(50);
    expect(contextLogUses(program, appFiles)).toEqual([]);
  });

  it('would be found however it is reached (the rule can fail)', () => {
    const sample = path.join(ROOT, 'functions', '__context-log-sample.ts');
    const text = [
      "import type { InvocationContext } from '@azure/functions';",
      'export function a(context: InvocationContext): void { context.log("x"); }',
      'export function b(ctx: InvocationContext): void { ctx.error("x"); ctx["warn"]("y"); }',
      'export function c({ info, invocationId }: InvocationContext): string { info("x"); return invocationId; }',
      'export function d(context: { log(message: string): void }): void { context.log("a logger called context is fine"); }',
    ].join('\n');
    const options = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })?.options ?? {};
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.readFile = (file) => (path.resolve(file) === sample ? text : readFile(file));
    host.fileExists = ((exists) => (file: string) => path.resolve(file) === sample || exists(file))(host.fileExists.bind(host));
    host.getSourceFile = (file, languageVersion, ...rest) =>
      path.resolve(file) === sample ? ts.createSourceFile(file, text, languageVersion, true) : getSourceFile(file, languageVersion, ...rest);
    const program = ts.createProgram({ rootNames: [sample], options: { ...options, noEmit: true }, host });
    const uses = contextLogUses(program, [sample]).map((use) => use.replace(/^.*?:(\d+): /, '$1: '));
    expect(uses).toEqual(['2: context.log', '3: ctx.error', '3: ctx["warn"]', '4: info']);
  });
});
