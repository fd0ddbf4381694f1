/**
 * ASP.NET Core route templates as the Functions host reads `route`: literal segments (case
 * insensitive), `{name}`, `{name?}`, `{name=default}`, `{name:constraint(arg)}` and a final
 * catch-all `{*name}` / `{**name}`. Segments mixing literal text and parameters are not supported.
 */

export interface RouteConstraint {
  name: string;
  /** False for a constraint this host does not know: it then accepts every value. */
  known: boolean;
  test(value: string): boolean;
}

export type RouteSegment =
  | { kind: 'literal'; text: string }
  | { kind: 'parameter'; name: string; optional: boolean; defaultValue: string | undefined; constraints: RouteConstraint[] }
  | { kind: 'catchAll'; name: string; constraints: RouteConstraint[] };

export interface RouteTemplate {
  text: string;
  segments: RouteSegment[];
}

/** A template the host cannot serve; the function is skipped with a warning. */
export class RouteTemplateError extends Error {
  override readonly name = 'RouteTemplateError';
}

const INT32 = { min: -(2n ** 31n), max: 2n ** 31n - 1n };
const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const GUID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}|\([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\))$/i;

const inRange = (value: string, range: { min: bigint; max: bigint }): boolean =>
  INTEGER.test(value) && BigInt(value) >= range.min && BigInt(value) <= range.max;

const numbers = (argument: string | undefined): number[] =>
  (argument ?? '').split(',').map((part) => Number(part.trim()));

/** Inline constraints of ASP.NET Core routing, by name (lower case). */
const CONSTRAINTS: Record<string, (argument: string | undefined) => (value: string) => boolean> = {
  int: () => (value) => inRange(value, INT32),
  long: () => (value) => inRange(value, INT64),
  bool: () => (value) => /^(?:true|false)$/i.test(value),
  guid: () => (value) => GUID.test(value),
  alpha: () => (value) => /^[a-z]+$/i.test(value),
  decimal: () => (value) => NUMBER.test(value),
  double: () => (value) => NUMBER.test(value),
  float: () => (value) => NUMBER.test(value),
  datetime: () => (value) => !Number.isNaN(Date.parse(value)),
  required: () => (value) => value.length > 0,
  minlength: (argument) => (value) => value.length >= (numbers(argument)[0] ?? 0),
  maxlength: (argument) => (value) => value.length <= (numbers(argument)[0] ?? Infinity),
  length: (argument) => {
    const [min = 0, max = min] = numbers(argument);
    return (value) => value.length >= min && value.length <= max;
  },
  min: (argument) => (value) => inRange(value, INT64) && Number(value) >= (numbers(argument)[0] ?? -Infinity),
  max: (argument) => (value) => inRange(value, INT64) && Number(value) <= (numbers(argument)[0] ?? Infinity),
  range: (argument) => {
    const [min = -Infinity, max = Infinity] = numbers(argument);
    return (value) => inRange(value, INT64) && Number(value) >= min && Number(value) <= max;
  },
  regex: (argument) => {
    const pattern = new RegExp(argument ?? '', 'i');
    return (value) => pattern.test(value);
  },
};

/** Parses a route template (without the route prefix). Throws `RouteTemplateError` for unsupported shapes. */
export function parseRouteTemplate(text: string): RouteTemplate {
  const trimmed = text.replace(/^~?\/+/, '').replace(/\/+$/, '');
  const parts = trimmed === '' ? [] : trimmed.split('/');
  const segments = parts.map((part) => parseSegment(part, text));
  segments.forEach((segment, index) => {
    if (segment.kind === 'catchAll' && index !== segments.length - 1) {
      throw new RouteTemplateError(`A catch-all parameter must be the last segment of route "${text}".`);
    }
  });
  return { text: trimmed, segments };
}

function parseSegment(part: string, template: string): RouteSegment {
  if (part === '') throw new RouteTemplateError(`Route "${template}" has an empty segment.`);
  if (!part.startsWith('{') || !part.endsWith('}') || part.startsWith('{{')) {
    if (/[{}]/.test(part.replace(/\{\{|\}\}/g, ''))) {
      throw new RouteTemplateError(`Route "${template}": segments mixing text and parameters are not supported.`);
    }
    return { kind: 'literal', text: part.replace(/\{\{/g, '{').replace(/\}\}/g, '}') };
  }
  const body = part.slice(1, -1);
  const catchAll = /^\*{1,2}/.exec(body);
  const rest = catchAll ? body.slice(catchAll[0].length) : body;
  const name = /^[^:?=*{}]+/.exec(rest)?.[0];
  if (!name) throw new RouteTemplateError(`Route "${template}" has a parameter without a name.`);
  let cursor = name.length;
  const constraints: RouteConstraint[] = [];
  while (rest[cursor] === ':') {
    const constraintName = /^[a-z]+/i.exec(rest.slice(cursor + 1))?.[0];
    if (!constraintName) throw new RouteTemplateError(`Route "${template}" has an empty constraint.`);
    cursor += 1 + constraintName.length;
    let argument: string | undefined;
    if (rest[cursor] === '(') {
      const close = closingParenthesis(rest, cursor);
      if (close < 0) throw new RouteTemplateError(`Route "${template}" has an unclosed constraint argument.`);
      argument = rest.slice(cursor + 1, close).replace(/\{\{/g, '{').replace(/\}\}/g, '}');
      cursor = close + 1;
    }
    constraints.push(makeConstraint(constraintName, argument));
  }
  const tail = rest.slice(cursor);
  if (catchAll) {
    if (tail !== '') throw new RouteTemplateError(`Route "${template}": a catch-all cannot be optional or have a default.`);
    return { kind: 'catchAll', name, constraints };
  }
  if (tail === '' || tail === '?') return { kind: 'parameter', name, optional: tail === '?', defaultValue: undefined, constraints };
  if (tail.startsWith('=')) return { kind: 'parameter', name, optional: false, defaultValue: tail.slice(1), constraints };
  throw new RouteTemplateError(`Route "${template}" has an unreadable parameter "${part}".`);
}

function closingParenthesis(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index += 1) {
    if (text[index] === '(') depth += 1;
    if (text[index] === ')' && --depth === 0) return index;
  }
  return -1;
}

function makeConstraint(name: string, argument: string | undefined): RouteConstraint {
  const factory = CONSTRAINTS[name.toLowerCase()];
  if (!factory) return { name, known: false, test: () => true };
  return { name, known: true, test: factory(argument) };
}

/** The path of a request as routing sees it: decoded segments, `%2F` kept encoded, no trailing slash. */
export function pathSegments(pathname: string): string[] {
  const trimmed = pathname.replace(/^\/+/, '').replace(/\/$/, '');
  if (trimmed === '') return [];
  return trimmed.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment.replace(/%2f/gi, '%252F'));
    } catch {
      return segment;
    }
  });
}

/** Matches path segments against a template; the route values on success, undefined otherwise. */
export function matchRoute(template: RouteTemplate, segments: readonly string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  let index = 0;
  for (const segment of template.segments) {
    if (segment.kind === 'catchAll') {
      const remainder = segments.slice(index).join('/');
      if (remainder !== '' && !segment.constraints.every((constraint) => constraint.test(remainder))) return undefined;
      if (remainder !== '') params[segment.name] = remainder;
      return params;
    }
    const value = segments[index];
    if (value === undefined) {
      if (segment.kind === 'literal') return undefined;
      if (segment.defaultValue !== undefined) params[segment.name] = segment.defaultValue;
      else if (!segment.optional) return undefined;
      continue;
    }
    if (segment.kind === 'literal') {
      if (value.toLowerCase() !== segment.text.toLowerCase()) return undefined;
    } else {
      if (value === '' || !segment.constraints.every((constraint) => constraint.test(value))) return undefined;
      params[segment.name] = value;
    }
    index += 1;
  }
  return index === segments.length ? params : undefined;
}

/**
 * ASP.NET Core's inbound precedence, one digit per segment, lower first: literal 1, constrained
 * parameter 2, parameter 3, constrained catch-all 4, catch-all 5.
 */
export function precedenceDigits(template: RouteTemplate): number[] {
  return template.segments.map((segment) => {
    if (segment.kind === 'literal') return 1;
    const constrained = segment.constraints.length > 0 ? 1 : 0;
    return (segment.kind === 'catchAll' ? 5 : 3) - constrained;
  });
}

/** Compares two templates by precedence (negative: `a` is tried first), like comparing the decimals. */
export function comparePrecedence(a: RouteTemplate, b: RouteTemplate): number {
  const digitsA = precedenceDigits(a);
  const digitsB = precedenceDigits(b);
  for (let index = 0; index < Math.max(digitsA.length, digitsB.length); index += 1) {
    const difference = (digitsA[index] ?? 0) - (digitsB[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
