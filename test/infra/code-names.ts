import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './alert-catalogue';

/**
 * Names the application code really uses, read from its sources: the endpoint labels of the HTTP
 * functions, the function names, and the fields and messages of its logging calls. Queries are
 * checked against these instead of a copied list, so a rename in code fails a test.
 */

/** The `.ts` sources of shared/ and functions/ (tests excluded), path → text. */
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

/** The HTTP functions registered under functions/ (`app.http(name, { route, methods })`). */
export function httpFunctions(): HttpFunction[] {
  const dir = path.join(ROOT, 'functions');
  const prefix = routePrefix();
  return readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((file) => {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const route = /const route = '([^']+)'/.exec(text)?.[1];
      const registration = /app\.http\('([^']+)',\s*\{([\s\S]*?)\}\);/.exec(text);
      if (!route || !registration) return [];
      const methods = [...(/methods:\s*\[([^\]]*)\]/.exec(registration[2] ?? '')?.[1] ?? '').matchAll(/'([A-Z]+)'/g)].map((m) => m[1]);
      return [{ name: registration[1] ?? '', endpoints: methods.map((method) => `${method} /${prefix}/${route}`) }];
    });
}

/**
 * The first argument of every logging call (`log.info({...}, 'message')`, `logger.error(...)`,
 * `deps.logger.warn(...)`) in the app's sources, with the message that follows it.
 */
export function loggingCalls(): { source: string; fields: string; message: string }[] {
  const calls: { source: string; fields: string; message: string }[] = [];
  for (const [source, text] of appSources()) {
    for (const match of text.matchAll(/\b(?:log|logger)\.(?:info|warn|error|debug)\(\s*/g)) {
      const start = (match.index ?? 0) + match[0].length;
      let fields = '';
      let rest = start;
      if (text[start] === '{') {
        let depth = 0;
        let end = start;
        for (; end < text.length; end += 1) {
          if (text[end] === '{') depth += 1;
          if (text[end] === '}') depth -= 1;
          if (depth === 0) break;
        }
        fields = text.slice(start, end + 1);
        rest = end + 1;
      }
      const message = /^\s*,?\s*(?:'([^']*)'|"([^"]*)")/.exec(text.slice(rest)) ?? /^\s*\n?\s*(?:'([^']*)'|"([^"]*)")/.exec(text.slice(rest));
      calls.push({ source, fields, message: message?.[1] ?? message?.[2] ?? '' });
    }
  }
  return calls;
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
