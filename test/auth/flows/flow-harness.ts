import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HttpRequest, InvocationContext, type HttpHandler, type HttpResponseInit } from '@azure/functions';
import { expect } from 'vitest';
import { authenticateSession, type SessionAuthentication } from '../../../shared/auth/authenticate-session';
import { createSecretHasher, type Argon2Params, type SecretHasher } from '../../../shared/ports/secret-hasher';
import { signInAdult, type AdultSignIn } from '../../../shared/auth/sign-in-adult';
import { signInChild, type ChildSignIn } from '../../../shared/auth/sign-in-child';
import type { ChildAccountView } from '../../../shared/children/child-account';
import { createChild } from '../../../shared/family/create-child';
import { buildAppServices, type AppServices } from '../../../shared/composition-root';
import { httpHandlerOf } from '../../../shared/composition/app-functions';
import { createChildSession } from '../../../functions/auth-child-session-create';
import { manualClock, type ManualClock } from '../../../shared/ports/clock';
import { createInMemoryTelemetry, type InMemoryTelemetry } from '../../../shared/telemetry/in-memory';
import type { Section, User } from '../../../shared/users/user';
import { insertUser } from '../../../shared/users/user-store';
import { CanaryTracker } from '../../helpers/canaries';
import { generateSigningKey, idTokenClaims, jwksOf, mintIdToken, type TestSigningKey } from '../../helpers/id-tokens';
import { startJwksServer, type JwksServer } from '../../helpers/jwks-server';
import { LogSink } from '../../helpers/log-sink';
import { parseLogLine } from '../../helpers/log-schema';
import { readRows } from '../../helpers/sqlite-reader';

/**
 * In-process harness for the authentication flow tests: real use cases on a temporary SQLite file,
 * a manual clock, an in-memory telemetry backend, a capturing log sink, and a canary tracker that
 * every secret or personal value used in a test goes into (the last test of each file searches
 * the log, the audit log and telemetry for them).
 */

/** A few milliseconds per Argon2 call instead of ~80: for every test that is not about the parameters. */
export const CHEAP_ARGON2: Argon2Params = { memoryCost: 1024, timeCost: 1, parallelism: 1 };
export const PEPPER = 'flows-test-pepper-5e0c1b9a7d3f2e4c6a8b';
export const START = '2031-03-02T09:00:00.000Z';
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

const ISSUER = 'https://idp.flows.test/';
const AUDIENCE = 'api://community-platform-flows';

export type AuditRow = Record<string, unknown> & {
  rowid: number;
  eventType: string;
  outcome: string;
  actorUserId: string | null;
  subjectUserId: string | null;
  targetType: string | null;
  targetId: string | null;
  reason: string | null;
  traceId: string | null;
  details: string | null;
};

export interface FlowHarnessOptions {
  /** Extra environment (NEW_USER_STATUS, BOOTSTRAP_ADMIN_SUBJECTS...). */
  env?: Record<string, string>;
  /** Start a JWKS server on 127.0.0.1 for adult sign-ins. */
  identityProvider?: boolean;
  /** Default `CHEAP_ARGON2`. */
  argon2?: Argon2Params;
  /** The main instance's hasher; default one with `argon2` and the harness's pepper. */
  hasher?: SecretHasher;
}

export interface FlowHarness {
  readonly databaseFile: string;
  readonly env: Record<string, string>;
  readonly clock: ManualClock;
  readonly sink: LogSink;
  readonly telemetry: InMemoryTelemetry;
  readonly canaries: CanaryTracker;
  readonly hasher: SecretHasher;
  readonly services: AppServices;
  /** Another service instance (own database connection, own hasher unless given) on the same file, clock and sinks. */
  instance(options?: { hasher?: SecretHasher }): AppServices;
  /** A hasher with the harness's pepper. */
  newHasher(params?: Argon2Params): SecretHasher;
  /** Inserts an adult directly (parents and admins of tests that do not need the identity provider). */
  insertAdult(overrides?: Partial<User>): Promise<User>;
  /** A signed ID token for `sub` at the clock's time, with verified e-mail/phone when given (all tracked as canaries). */
  idToken(sub: string, contact?: { email?: string; phone?: string }): string;
  signInAdult(idToken: string, services?: AppServices): Promise<AdultSignIn>;
  createChild(parent: User, username: string, pin: string, scopes?: readonly Section[], services?: AppServices): Promise<ChildAccountView>;
  signInChild(username: string, secret: string, options?: { address?: string | null; services?: AppServices }): Promise<ChildSignIn>;
  authenticate(token: string, services?: AppServices): Promise<SessionAuthentication>;
  /** Every AuditLog row in insertion order (rowid), read through a separate read-only connection. */
  auditRows(): AuditRow[];
  /** The highest AuditLog rowid now, to read only what comes after with `auditAfter`. */
  auditMark(): number;
  auditAfter(mark: number): AuditRow[];
  rows<T = Record<string, unknown>>(sql: string, params?: Record<string, string | number | null>): T[];
  /** The canaries found in all log text, all AuditLog rows and all telemetry items. */
  leaks(): { log: string[]; audit: string[]; telemetry: string[] };
  close(): Promise<void>;
}

export async function createFlowHarness(options: FlowHarnessOptions = {}): Promise<FlowHarness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'auth-flows-'));
  const databaseFile = path.join(dir, 'platform.sqlite');
  const clock = manualClock(START);
  const sink = new LogSink();
  const telemetry = createInMemoryTelemetry();
  const canaries = new CanaryTracker();
  canaries.add(PEPPER);
  let signingKey: TestSigningKey | undefined;
  let jwks: JwksServer | undefined;
  if (options.identityProvider) {
    signingKey = generateSigningKey();
    jwks = await startJwksServer(jwksOf(signingKey));
  }
  const env: Record<string, string> = {
    APP_ENV: 'test',
    SQLITE_PATH: databaseFile,
    CHILD_SECRET_PEPPER: PEPPER,
    LOG_LEVEL: 'info',
    TRUST_PROXY_HOPS: '1',
    ...(jwks ? { IDP_JWKS_URI: jwks.url, IDP_ISSUER: ISSUER, IDP_AUDIENCE: AUDIENCE } : {}),
    ...options.env,
  };
  const params = options.argon2 ?? CHEAP_ARGON2;
  const newHasher = (p: Argon2Params = params): SecretHasher => createSecretHasher({ pepper: PEPPER, params: p });
  const hasher = options.hasher ?? newHasher();
  const instances: AppServices[] = [];
  const instance = (opts: { hasher?: SecretHasher } = {}): AppServices => {
    const built = buildAppServices(env, { logDestination: sink, telemetry, clock, childSecretHasher: opts.hasher ?? newHasher() });
    instances.push(built);
    return built;
  };
  const services = buildAppServices(env, { logDestination: sink, telemetry, clock, childSecretHasher: hasher });
  instances.push(services);

  const trackSession = (result: AdultSignIn | ChildSignIn): void => {
    if (!result.ok) return;
    const token = result.started.token;
    canaries.add(token, `Bearer ${token}`, token.split('.')[1] ?? token);
  };

  const rows = <T = Record<string, unknown>>(sql: string, params: Record<string, string | number | null> = {}): T[] =>
    readRows<T>(databaseFile, sql, params);
  const auditRows = (): AuditRow[] => rows<AuditRow>('SELECT rowid, * FROM AuditLog ORDER BY rowid');

  const harness: FlowHarness = {
    databaseFile,
    env,
    clock,
    sink,
    telemetry,
    canaries,
    hasher,
    services,
    instance,
    newHasher,
    async insertAdult(overrides = {}) {
      const id = randomUUID();
      const now = clock.now().toISOString();
      const user: User = {
        id,
        accountType: 'adult',
        issuer: ISSUER,
        subject: `subject-${id}`,
        parentId: null,
        role: 'member',
        status: 'active',
        email: null,
        phone: null,
        createdAt: now,
        updatedAt: now,
        ...overrides,
      };
      await insertUser(await services.database.get(), user);
      return user;
    },
    idToken(sub, contact = {}) {
      if (!signingKey) throw new Error('start the harness with identityProvider: true');
      const token = mintIdToken(
        signingKey,
        idTokenClaims(
          { issuer: ISSUER, audience: AUDIENCE, now: clock.now() },
          {
            sub,
            ...(contact.email ? { email: contact.email, email_verified: true } : {}),
            ...(contact.phone ? { phone_number: contact.phone, phone_number_verified: true } : {}),
          },
        ),
      );
      // The provider's subject is a pseudonymous personal identifier: kept out of logs and audit details too.
      canaries.add(token, sub, ...(contact.email ? [contact.email] : []), ...(contact.phone ? [contact.phone] : []));
      return token;
    },
    async signInAdult(idToken, on = services) {
      const result = await signInAdult(idToken, {
        ...on.corePorts,
        verifier: on.idTokenVerifier,
        newUserStatus: on.config.newUserStatus,
        bootstrapAdmins: on.config.bootstrapAdmins,
        throttle: on.adultSignInThrottle,
      });
      trackSession(result);
      return result;
    },
    async createChild(parent, username, pin, scopes = ['announcements'], on = services) {
      canaries.add(username, pin);
      const created = await createChild(parent, { username, secret: { kind: 'pin', value: pin }, scopes }, on.childAccountPorts);
      if (!created.ok) throw new Error(`createChild refused: ${created.problem.code}`);
      const [row] = rows<{ secretHash: string }>('SELECT secretHash FROM ChildAccounts WHERE userId = @id', { id: created.child.id });
      if (row) canaries.add(row.secretHash);
      return created.child;
    },
    async signInChild(username, secret, opts = {}) {
      canaries.add(username, secret);
      const result = await signInChild(
        { username, secret, clientAddress: opts.address === undefined ? '198.51.100.20' : opts.address },
        (opts.services ?? services).childAccountPorts,
      );
      trackSession(result);
      return result;
    },
    authenticate(token, on = services) {
      return authenticateSession(`Bearer ${token}`, on.corePorts);
    },
    auditRows,
    auditMark() {
      return rows<{ mark: number | null }>('SELECT MAX(rowid) AS mark FROM AuditLog')[0]?.mark ?? 0;
    },
    auditAfter(mark) {
      return rows<AuditRow>('SELECT rowid, * FROM AuditLog WHERE rowid > @mark ORDER BY rowid', { mark });
    },
    rows,
    leaks() {
      return {
        log: canaries.findIn(sink.text),
        audit: canaries.findIn(JSON.stringify(auditRows())),
        telemetry: canaries.findIn(telemetry.serialized()),
      };
    },
    async close() {
      for (const built of instances) await built.database.close().catch(() => undefined);
      await jwks?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** The audit row's details, parsed. */
export function detailsOf(row: AuditRow | undefined): Record<string, unknown> {
  expect(row, 'audit row').toBeDefined();
  return row?.details ? (JSON.parse(row.details) as Record<string, unknown>) : {};
}

/**
 * The leak check each file ends with: none of the tracked secrets or personal values anywhere in
 * the log, the audit log or telemetry, and every log line valid against the log-line schema. The
 * positive controls prove the search would have found a leak.
 */
export function expectNoLeaks(h: FlowHarness, minimumCanaries: number): void {
  expect(h.canaries.size).toBeGreaterThanOrEqual(minimumCanaries);
  expect(h.sink.raw.length).toBeGreaterThan(0);
  expect(h.auditRows().length).toBeGreaterThan(0);
  expect(h.telemetry.items.length).toBeGreaterThan(0);
  expect(h.canaries.findIn(`{"leaked":"${PEPPER}"}`)).toEqual([PEPPER]);
  for (const line of h.sink.raw) expect(() => parseLogLine(line)).not.toThrow();
  expect(h.leaks()).toEqual({ log: [], audit: [], telemetry: [] });
}

// ---- HTTP: the real child sign-in endpoint on the harness's services ----

/** The child sign-in endpoint of functions/auth-child-session-create.ts, in the pipeline of `services`. */
export function childSessionEndpoint(services: AppServices): HttpHandler {
  return httpHandlerOf(createChildSession, services);
}

export function jsonRequest(method: string, url: string, body: unknown, headers: Record<string, string> = {}): HttpRequest {
  return new HttpRequest({
    method,
    url,
    headers: { 'content-type': 'application/json', ...headers },
    body: { string: JSON.stringify(body) },
  });
}

export function invocation(name = 'flows'): InvocationContext {
  return new InvocationContext({ invocationId: randomUUID(), functionName: name });
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
}

/** Calls a handler built by the HTTP pipeline (which always answers a plain `HttpResponseInit`). */
export async function call(handler: HttpHandler, request: HttpRequest, functionName = 'flows'): Promise<HttpAnswer> {
  return answerOf((await handler(request, invocation(functionName))) as HttpResponseInit);
}

export function answerOf(response: HttpResponseInit): HttpAnswer {
  return {
    status: response.status ?? 200,
    headers: { ...(response.headers as Record<string, string> | undefined) },
    body: response.body === undefined ? undefined : (JSON.parse(String(response.body)) as Record<string, unknown>),
  };
}

/**
 * Locks a child account the only way there is, 10 consecutive failures, waiting out each throttle
 * wait on the manual clock; then waits out the wait after the 10th too, so the next attempt is not
 * throttled. Uses `address` for every attempt.
 */
export async function lockByFailures(h: FlowHarness, username: string, wrongPin: string, address = '198.51.100.99'): Promise<void> {
  for (let n = 1; n <= 10; n += 1) {
    const result = await h.signInChild(username, wrongPin, { address });
    if (result.ok || result.problem.code !== 'invalid_credentials') throw new Error(`failure ${n} was not counted`);
    if (n >= 3) h.clock.advance(2 ** (n - 3) * SECOND);
  }
  const locked = h.rows<{ lockedAt: string | null }>(
    'SELECT c.lockedAt FROM ChildAccounts c WHERE c.username = @username',
    { username: username.toLowerCase() },
  );
  if (!locked[0]?.lockedAt) throw new Error('the account did not lock');
}
