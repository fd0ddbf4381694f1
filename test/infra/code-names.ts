import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { APP_FUNCTIONS } from '../../functions/index';
import { ROOT } from './alert-catalogue';

/**
 * Names the application code really uses, read from its sources: the endpoint labels of the HTTP
 * functions, the function names, and the fields and messages of its logging calls. Queries are
 * checked against these instead of a copied list, so a rename in code fails a test.
 */

/**
 * The `.ts` sources of shared/, functions/ and scripts/ (the release's command-line programs, such as
 * the migrator, log too), tests excluded, path → text.
 */
export function appSources(): Map<string, string> {
  const sources = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) sources.set(path.relative(ROOT, full), readFileSync(full, 'utf8'));
    }
  };
  walk(path.join(ROOT, 'shared'));
  walk(path.join(ROOT, 'functions'));
  walk(path.join(ROOT, 'scripts'));
  return sources;
}

/** The route prefix of host.json (`api`). */
function routePrefix(): string {
  const host = JSON.parse(readFileSync(path.join(ROOT, 'host.json'), 'utf8')) as { extensions?: { http?: { routePrefix?: string } } };
  return host.extensions?.http?.routePrefix ?? 'api';
}

export interface HttpFunction {
  name: string;
  /** `METHOD /api/route`, as the `endpoint` field of a log line spells it. */
  endpoints: string[];
}

/** The HTTP functions the app registers, from their definitions (functions/index.ts): the endpoints and the catch-all. */
export function httpFunctions(): HttpFunction[] {
  const prefix = routePrefix();
  return APP_FUNCTIONS.flatMap((fn): HttpFunction[] => {
    if (fn.kind === 'http') {
      const methods = [fn.method.toUpperCase(), ...(fn.head ? ['HEAD'] : [])];
      return [{ name: fn.name, endpoints: methods.map((method) => `${method} /${prefix}/${fn.route}`) }];
    }
    if (fn.kind === 'catch-all') {
      return [{ name: fn.name, endpoints: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].map((method) => `${method} /${prefix}/{*path}`) }];
    }
    return [];
  });
}

/** The names of the app's Event Grid functions. */
export function eventGridFunctions(): string[] {
  return APP_FUNCTIONS.filter((fn) => fn.kind === 'event-grid').map((fn) => fn.name);
}

const LOG_LEVELS = new Set(['info', 'warn', 'error', 'debug']);

/** A logging call of the app's sources: its fields argument as written and the messages it can write. */
export interface LoggingCall {
  source: string;
  /** The first argument's text when it is the fields object (`{ ... }`, or a name such as `fields`); '' otherwise. */
  fields: string;
  /**
   * The messages the call can write: its message argument's string literals, through `?:`, `??` and
   * `||` (`ok ? 'x migrated' : 'x current'`). Empty when the message is computed elsewhere.
   */
  messages: string[];
}

/** Whether `expression` names a logger: `log`, `logger`, `deps.logger`, `this.log`, `requestLogger`. */
function isLogger(expression: ts.Expression): boolean {
  const name = ts.isIdentifier(expression) ? expression.text : ts.isPropertyAccessExpression(expression) ? expression.name.text : '';
  return name === 'log' || /logger$/i.test(name);
}

/** The logger method a call invokes: `logger.warn(...)`, or `logger[level](...)` whatever `level` is. */
function isLoggingCall(call: ts.CallExpression): boolean {
  const callee = call.expression;
  if (ts.isPropertyAccessExpression(callee)) return LOG_LEVELS.has(callee.name.text) && isLogger(callee.expression);
  if (ts.isElementAccessExpression(callee)) {
    const level = callee.argumentExpression;
    const literal = ts.isStringLiteralLike(level) ? level.text : undefined;
    return (literal === undefined || LOG_LEVELS.has(literal)) && isLogger(callee.expression);
  }
  return false;
}

/** The string literals an expression can evaluate to, where it is made of literals. */
function literalsOf(expression: ts.Expression | undefined): string[] {
  if (!expression) return [];
  if (ts.isStringLiteralLike(expression)) return [expression.text];
  if (ts.isParenthesizedExpression(expression)) return literalsOf(expression.expression);
  if (ts.isConditionalExpression(expression)) return [...literalsOf(expression.whenTrue), ...literalsOf(expression.whenFalse)];
  if (ts.isBinaryExpression(expression) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(expression.operatorToken.kind)) {
    return [...literalsOf(expression.left), ...literalsOf(expression.right)];
  }
  return [];
}

const isStringLike = (expression: ts.Expression): boolean => literalsOf(expression).length > 0 || ts.isTemplateExpression(expression);

/**
 * Every logging call of the app's sources (pino's `(fields, message)` or `(message)`), parsed with
 * the TypeScript parser, so a call spread over lines, a computed level (`logger[level](...)`) or a
 * message chosen by a condition is read as the logger sees it.
 */
export function loggingCalls(): LoggingCall[] {
  const calls: LoggingCall[] = [];
  for (const [source, text] of appSources()) {
    const file = ts.createSourceFile(source, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && isLoggingCall(node)) {
        const [first, second] = node.arguments;
        const messageFirst = first !== undefined && isStringLike(first);
        calls.push({
          source,
          fields: first && !messageFirst ? first.getText(file) : '',
          messages: literalsOf(messageFirst ? first : second),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return calls;
}

/** Every message a logging call of the app's sources writes. */
export function loggedMessages(): Set<string> {
  return new Set(loggingCalls().flatMap((call) => call.messages));
}

/** Whether an object literal's text has `field` as a key (`field: x` or the shorthand `field`). */
export function hasKey(objectText: string, field: string): boolean {
  return new RegExp(`[{,]\\s*${field}\\s*[:,}]`).test(objectText);
}

/** Every string literal of the app's sources (to find messages and error codes used in code). */
export function sourceStringLiterals(): Set<string> {
  const literals = new Set<string>();
  for (const text of appSources().values()) {
    for (const match of text.matchAll(/'([^'\n]*)'|"([^"\n]*)"/g)) literals.add(match[1] ?? match[2] ?? '');
  }
  return literals;
}
