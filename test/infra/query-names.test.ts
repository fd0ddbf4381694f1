import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../shared/errors/error-catalogue';
import { OPERATIONAL_LOG_FIELDS } from '../../shared/logging/log-fields';
import { DELIVERY_RESULTS } from '../../shared/notifications/ledger/delivery-ledger';
import logLineSchema from '../../shared/logging/log-line.schema.json';
import { TELEMETRY_EVENTS, TELEMETRY_METRICS } from '../../shared/telemetry/event-catalogue';
import { allQueries, loadWorkspaceFunctions, type NamedQuery } from './alert-catalogue';
import { hasKey, httpFunctions, loggedMessages, loggingCalls, sourceStringLiterals } from './code-names';

/**
 * The names a query reads are names the code emits: custom events and their properties from the
 * telemetry catalogue, metrics from the metric catalogue, log-line fields from the log-line schema
 * or the operational field list, messages from the app's logging calls, error codes from the
 * sources, endpoint labels and function names from the registered HTTP functions.
 */
const queries = allQueries();
const schemaFields = new Set(Object.keys(logLineSchema.properties));
const lineFields = new Set<string>([...schemaFields, ...OPERATIONAL_LOG_FIELDS]);
const events = TELEMETRY_EVENTS as Record<string, readonly string[]>;
const metrics = TELEMETRY_METRICS as Record<string, readonly string[]>;
const functionsOfHost = httpFunctions();
const endpoints = new Set(functionsOfHost.flatMap((fn) => fn.endpoints));
const literals = sourceStringLiterals();
const messages = loggedMessages();

/** String literals compared with `column` (`==`, `=~`, `!=`, `in (...)`, `!in (...)`). */
function comparedWith(text: string, column: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(new RegExp(`\\b${column}\\s*(?:==|=~|!=)\\s*"([^"]*)"`, 'g'))) found.push(match[1] ?? '');
  for (const match of text.matchAll(new RegExp(`\\b${column}\\s*!?in~?\\s*\\(([^)]*)\\)`, 'g'))) {
    for (const item of (match[1] ?? '').matchAll(/"([^"]*)"/g)) found.push(item[1] ?? '');
  }
  return found;
}

/** Dynamic members read from `column`: `column.name` and `column["name"]` (comments skipped). */
function membersOf(query: string, column: string): string[] {
  const text = query.replace(/^\s*\/\/.*$/gm, '');
  return [
    ...[...text.matchAll(new RegExp(`\\b${column}\\.([A-Za-z_][A-Za-z0-9_]*)`, 'g'))].map((match) => match[1] ?? ''),
    ...[...text.matchAll(new RegExp(`\\b${column}\\[\\s*["']([^"']+)["']\\s*\\]`, 'g'))].map((match) => match[1] ?? ''),
  ];
}

/** Log messages, error codes and endpoint labels a query reads that the code never writes. */
function unwrittenNames(query: NamedQuery): string[] {
  const problems: string[] = [];
  for (const message of comparedWith(query.text, 'message')) {
    if (!messages.has(message)) problems.push(`${query.where}: no logging call writes the message "${message}"`);
  }
  for (const code of comparedWith(query.text, 'errorCode')) {
    if (!(code in ERROR_CATALOGUE) && !literals.has(code)) problems.push(`${query.where}: error code "${code}" is not used in code`);
  }
  for (const match of query.text.matchAll(/"((?:GET|POST|PUT|PATCH|DELETE) \/[^"]*)"/g)) {
    if (!endpoints.has(match[1] ?? '')) problems.push(`${query.where}: "${match[1]}" is not a registered endpoint`);
  }
  return problems;
}

function reads(query: NamedQuery, table: string): boolean {
  return new RegExp(`\\b${table}\\b`).test(query.text);
}

describe('names read by the queries', () => {
  it('reads only custom events of the telemetry catalogue, with their properties', () => {
    const problems: string[] = [];
    for (const query of queries.filter((q) => reads(q, 'AppEvents'))) {
      const names = comparedWith(query.text, 'Name');
      if (names.length === 0) problems.push(`${query.where}: reads AppEvents without naming the events`);
      const allowed = new Set<string>(reads(query, 'AppRequests') ? functionsOfHost.map((fn) => fn.name) : []);
      if (reads(query, 'AppMetrics')) for (const name of Object.keys(metrics)) allowed.add(name);
      const properties = new Set<string>();
      for (const name of names) {
        if (events[name]) for (const property of events[name] ?? []) properties.add(property);
        else if (!allowed.has(name)) problems.push(`${query.where}: event "${name}" is not in TELEMETRY_EVENTS`);
      }
      for (const property of membersOf(query.text, 'Properties')) {
        if (!properties.has(property)) problems.push(`${query.where}: property "${property}" is not sent with ${names.join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('reads only metrics of the metric catalogue', () => {
    const problems: string[] = [];
    for (const query of queries.filter((q) => reads(q, 'AppMetrics') && !reads(q, 'AppEvents'))) {
      const names = comparedWith(query.text, 'Name');
      if (names.length === 0) problems.push(`${query.where}: reads AppMetrics without naming the metric`);
      for (const name of names) if (!metrics[name]) problems.push(`${query.where}: metric "${name}" is not in TELEMETRY_METRICS`);
    }
    expect(problems).toEqual([]);
  });

  it('reads only log-line fields of the schema or of OPERATIONAL_LOG_FIELDS', () => {
    const problems: string[] = [];
    for (const [name, body] of loadWorkspaceFunctions()) {
      for (const field of membersOf(body, 'line')) if (!schemaFields.has(field)) problems.push(`function ${name}: line.${field} is not in the log-line schema`);
    }
    for (const query of queries) {
      for (const field of membersOf(query.text, 'line')) {
        if (!lineFields.has(field)) problems.push(`${query.where}: line.${field} is neither in the log-line schema nor in OPERATIONAL_LOG_FIELDS`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('reads only log messages, error codes and endpoints that the code writes', () => {
    expect(queries.flatMap(unwrittenNames)).toEqual([]);
  });

  it('reads a message only when a logging call writes it, not because the text is in the code', () => {
    const read = (message: string): NamedQuery => ({ where: 'fixture', text: `AppLogLines\n| where message == "${message}"` });
    // In the sources as a problem's title, but no logging call writes it.
    expect(literals.has('Invalid request')).toBe(true);
    expect(unwrittenNames(read('Invalid request'))).toEqual(['fixture: no logging call writes the message "Invalid request"']);
    // Written with a computed level (`logger[level](...)`), after a fields variable, or chosen by a condition.
    expect(unwrittenNames(read('adult sign-in limit reached'))).toEqual([]);
    expect(unwrittenNames(read('communication event applied'))).toEqual([]);
    expect(unwrittenNames(read('expired sessions swept'))).toEqual([]);
    expect(unwrittenNames(read('database schema already current'))).toEqual([]);
    // Runbook queries are checked like the alerts' (in list form too).
    const runbook = queries.filter((query) => query.where.startsWith('docs/runbooks/') && comparedWith(query.text, 'message').length > 0);
    expect(runbook.length).toBeGreaterThanOrEqual(3);
    expect(unwrittenNames({ where: 'fixture', text: 'AppLogLines\n| where message in ("sign-in failed", "adult sign-in lockout")' })).toEqual([
      'fixture: no logging call writes the message "adult sign-in lockout"',
    ]);
  });

  it('compares notification.delivery results only with results the code reports (DELIVERY_RESULTS)', () => {
    const known = new Set<string>(DELIVERY_RESULTS);
    const problems: string[] = [];
    const deliveryQueries = queries.filter((query) => comparedWith(query.text, 'Name').includes('notification.delivery'));
    expect(deliveryQueries.length).toBeGreaterThanOrEqual(3);
    for (const query of deliveryQueries) {
      for (const result of comparedWith(query.text, 'result')) {
        if (!known.has(result)) problems.push(`${query.where}: result "${result}" is not in DELIVERY_RESULTS`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('knows the registered endpoints (the endpoint check has something to check against)', () => {
    expect(endpoints).toContain('POST /api/v1/auth/session');
    expect(endpoints).toContain('POST /api/v1/auth/child-session');
    expect(endpoints).toContain('GET /api/health');
    expect(endpoints).toContain('GET /api/ready');
  });
});

describe('OPERATIONAL_LOG_FIELDS (shared/logging/log-fields.ts)', () => {
  const calls = loggingCalls();

  it('lists only fields that some logging call in shared/ or functions/ writes', () => {
    expect(calls.length).toBeGreaterThan(10);
    const unwritten = OPERATIONAL_LOG_FIELDS.filter((field) => !calls.some((call) => hasKey(call.fields, field)));
    expect(unwritten).toEqual([]);
  });

  it('lists no field the schema already has', () => {
    expect(OPERATIONAL_LOG_FIELDS.filter((field) => schemaFields.has(field))).toEqual([]);
  });

  it('recognises a key in a logging call, shorthand included (the check can fail)', () => {
    expect(hasKey('{ errorCode: "x", providerStatus, staleKeysAvailable }', 'providerStatus')).toBe(true);
    expect(hasKey('{ errorCode: "x", providerStatusCode: 1 }', 'providerStatus')).toBe(false);
  });
});
