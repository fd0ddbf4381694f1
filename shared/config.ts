import * as z from 'zod/mini';
import { DEFAULT_SHUTDOWN_GRACE_SECONDS } from './settings/shutdown-timings';
import { parseBootstrapAdmins, type BootstrapAdmin } from './settings/bootstrap-admins';
import { isUnsafeAlgorithm, parseIdentityProviders, type IdentityProviderSettings } from './settings/provider-settings';
import { hasInstrumentationKey } from './settings/app-insights-connection';

/**
 * The one place that reads the environment. Every other module receives the parsed `Config`
 * (or a slice of it) from the composition root, so a setting is validated once, at start-up,
 * and a missing production secret stops the app with a message that names the setting.
 */

export const APP_ENVS = ['development', 'test', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The `service` of log lines when `SERVICE_NAME` is unset (and of the line saying the settings are invalid). */
export const DEFAULT_SERVICE_NAME = 'api';

/** Development storage: Azurite's well-known account, as the Functions tooling spells it. */
export const DEVELOPMENT_STORAGE = 'UseDevelopmentStorage=true';

/** The built-in development identity provider (never in production: IDP_JWKS_URI is required there). */
export const DEV_IDP_ISSUER = 'http://localhost:7071/dev-idp';
export const DEV_IDP_AUDIENCE = 'community-platform-dev';
export const DEV_IDP_KEY_DIRECTORY = '.data/dev-idp';

/** The dev pepper is public on purpose: it only protects throwaway local hashes. */
const DEV_CHILD_SECRET_PEPPER = 'dev-only-pepper-not-secret-0123456789abcdef';

/** The terms version outside production when none is set: plainly not a real version of the terms. */
export const DEV_CONSENT_TERMS_VERSION = 'development';

/**
 * The settings `envSchema` reads, with blank values (as app settings and `local.settings.json`
 * leave them) as absent: one pass here rather than a `z.preprocess` around every field.
 */
function presentSettings(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const present: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') present[key] = value;
  }
  return present;
}

const optionalString = z.optional(z.string().check(z.trim()));

const booleanFlag = z.pipe(
  z.optional(z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' })),
  z.transform((value) => value === 'true' || value === '1'),
);

const commaList = z.pipe(
  z.optional(z.string()),
  z.transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  ),
);

/**
 * A whole number from `min` to `max`, from its decimal text; `fallback` when absent. One check for
 * the three conditions: the schema is built at every cold start, and each check is a schema of its own.
 */
const wholeNumber = (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER, kind = 'a whole number') => {
  const message = max === Number.MAX_SAFE_INTEGER ? `must be ${kind}, at least ${min}` : `must be ${kind} from ${min} to ${max}`;
  return z._default(
    z.coerce.number({ message }).check(z.refine((value) => Number.isInteger(value) && value >= min && value <= max, { message })),
    fallback,
  );
};

/** A number at least 0, from its decimal text; `fallback` when absent. */
const amount = (fallback: number) => z._default(z.coerce.number({ message: 'must be a number' }).check(z.minimum(0)), fallback);

const absoluteUrl = () => z.url({ message: 'must be an absolute URL' });

/**
 * The settings, in `zod/mini`'s functional form: the same validation as zod's chained API, but the
 * schema is built on every cold start, and mini's schemas cost a third as much to build and parse.
 */
const envSchema = z.object({
  APP_ENV: z._default(z.enum(APP_ENVS), 'development'),
  SERVICE_NAME: z._default(z.string().check(z.minLength(1), z.maxLength(64)), DEFAULT_SERVICE_NAME),
  LOG_LEVEL: z._default(z.enum(LOG_LEVELS), 'info'),
  ALLOW_DEBUG_IN_PRODUCTION: booleanFlag,
  LOG_PRETTY: booleanFlag,
  IDP_ISSUER: optionalString,
  IDP_AUDIENCE: optionalString,
  IDP_JWKS_URI: z.optional(absoluteUrl()),
  IDP_ALGORITHMS: commaList,
  // A claim name as providers spell them: a short word or a namespaced URI (Auth0's custom claims), never blank.
  IDP_EMAIL_VERIFIED_CLAIM: z._default(
    z.string().check(z.trim(), z.regex(/^\S{1,256}$/, { message: 'must be a claim name (no spaces, at most 256 characters)' })),
    'email_verified',
  ),
  IDP_EMAIL_VERIFIED_BY_ISSUER: booleanFlag,
  // Several providers: a JSON array, or numbered IDP_PROVIDERS__<n>__<FIELD> settings (parsed in provider-settings.ts).
  IDP_PROVIDERS: optionalString,
  // Origins (scheme://host[:port]) a browser app may call the API from; empty: CORS off.
  CORS_ALLOWED_ORIGINS: commaList,
  SQL_CONNECTION_STRING: optionalString,
  SQLITE_PATH: z._default(z.string(), '.data/platform.sqlite'),
  // Outside production the schema is brought up to date when the database first opens; false: as
  // production, never (the schema comes from `npm run migrate`). Production refuses true.
  MIGRATE_ON_OPEN: z.optional(z.enum(['true', 'false'], { message: 'must be true or false' })),
  AzureWebJobsStorage: optionalString,
  AzureWebJobsStorage__accountName: optionalString,
  AzureWebJobsStorage__queueServiceUri: z.optional(absoluteUrl()),
  AzureWebJobsStorage__clientId: optionalString,
  AZURE_CLIENT_ID: optionalString,
  APPLICATIONINSIGHTS_CONNECTION_STRING: optionalString,
  // The OTLP base URL (`/v1/logs`, `/v1/metrics`, `/v1/traces` below it); it may hold credentials, so never echoed.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.optional(
    z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' }).check(
      z.refine((value) => !/[?#]/.test(value), { message: 'must have no query or fragment (the signal paths are appended to it)' }),
    ),
  ),
  OTEL_SERVICE_NAME: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(128))),
  CHILD_SECRET_PEPPER: optionalString,
  NEW_USER_STATUS: z._default(z.enum(['active', 'pending_approval']), 'active'),
  BOOTSTRAP_ADMIN_SUBJECTS: commaList,
  TRUST_PROXY_HOPS: wholeNumber(0, 0),
  ADULT_SIGN_IN_ADDRESS_MAX_FAILURES: wholeNumber(30, 1, 100_000),
  ADULT_SIGN_IN_ADDRESS_WINDOW_MINUTES: wholeNumber(10, 1, 24 * 60),
  ADULT_SIGN_IN_GLOBAL_MAX_FAILURES_PER_MINUTE: wholeNumber(60, 1, 1_000_000),
  PORT: wholeNumber(7071, 0, 65535, 'a port number'),
  QUEUE_DEPTH_SCHEDULE: z._default(z.string(), '0 */5 * * * *'),
  SESSION_SWEEP_SCHEDULE: z._default(z.string(), '0 17 * * * *'),
  PUSH_RECEIPTS_SCHEDULE: z._default(z.string(), '0 */15 * * * *'),
  DELIVERY_SETTLE_SCHEDULE: z._default(z.string(), '0 7-59/15 * * * *'),
  // Every 30 seconds: a crashed fan-out batch resumes within 90 seconds (one ledger lease, then this).
  FANOUT_RECOVERY_SCHEDULE: z._default(z.string(), '*/30 * * * * *'),
  COST_CHECK_SCHEDULE: z._default(z.string(), '0 30 6 * * *'),
  // The ARM scope whose cost the daily check reads (the deployment's resource group); empty: no check.
  COST_SCOPE: z.optional(
    z.string().check(
      z.regex(/^\/subscriptions\/[0-9a-fA-F-]{36}(\/resourceGroups\/[-\w.()]{1,90})?$/, {
        message: 'must be /subscriptions/<id> or /subscriptions/<id>/resourceGroups/<name>',
      }),
    ),
  ),
  COST_EXPECTED_MONTHLY_USD: amount(150),
  INGRESS_METRICS_SCHEDULE: z._default(z.string(), '0 */1 * * * *'),
  // The container app whose ingress answers the API error-rate alert counts; empty: no count.
  INGRESS_METRICS_RESOURCE_ID: z.optional(
    z.string().check(
      z.regex(/^\/subscriptions\/[0-9a-fA-F-]{36}\/resourceGroups\/[-\w.()]{1,90}\/providers\/Microsoft\.App\/containerApps\/[-a-zA-Z0-9]{2,32}$/, {
        message: 'must be /subscriptions/<id>/resourceGroups/<name>/providers/Microsoft.App/containerApps/<name>',
      }),
    ),
  ),
  // The regional metrics endpoint of that app's region (https://<region>.metrics.monitor.azure.com).
  INGRESS_METRICS_ENDPOINT: z.optional(z.url({ protocol: /^https$/, message: 'must be an https:// URL' })),
  FANOUT_BATCH_SIZE: wholeNumber(500, 1, 5000),
  SMS_MONTHLY_CAP_USD: amount(30),
  SMS_UNIT_COST_USD: amount(0.0075),
  EXPO_PUSH_URL: z._default(absoluteUrl(), 'https://exp.host/--/api/v2/push'),
  EXPO_ACCESS_TOKEN: optionalString,
  ACS_CONNECTION_STRING: optionalString,
  ACS_ENDPOINT: z.optional(absoluteUrl()),
  ACS_SMS_FROM: optionalString,
  ACS_EMAIL_SENDER: optionalString,
  // libuv reads it itself when its pool starts; the app reads it to fit the Argon2 limit to the pool (libuv's range).
  UV_THREADPOOL_SIZE: wholeNumber(4, 1, 1024),
  // The waiting line in front of Argon2 (DEFAULT_HASH_QUEUE in shared/ports/secret-hasher.ts).
  HASH_QUEUE_MAX: wholeNumber(128, 1, 100_000),
  HASH_QUEUE_MAX_WAIT_MS: wholeNumber(3000, 1, 60_000),
  // The platform's SIGTERM-to-SIGKILL grace (Container Apps allows up to 600 s); the shutdown deadline derives from it.
  SHUTDOWN_GRACE_SECONDS: wholeNumber(DEFAULT_SHUTDOWN_GRACE_SECONDS, 3, 600),
  // Recorded with every consent and shown to parents: a short label, never free text.
  CONSENT_TERMS_VERSION: z.optional(
    z.string().check(
      z.trim(),
      z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/, { message: 'must be a short version label: 1 to 32 of A-Z a-z 0-9 . _ - (e.g. 2025-06)' }),
    ),
  ),
});

/** The parsed, validated settings of one process. */
export interface Config {
  appEnv: AppEnv;
  serviceName: string;
  logLevel: LogLevel;
  /** Human-readable logs for a developer's terminal; never the production format. */
  logPretty: boolean;
  /**
   * The identity provider whose ID tokens the adult sign-in accepts: a remote JWKS in production,
   * or, outside production with no `IDP_JWKS_URI`, the built-in development provider whose key pair
   * lives under `keyDirectory`.
   */
  idp:
    | { kind: 'remote'; issuer: string; audience: string; jwksUri: string; algorithms: string[] }
    | { kind: 'development'; issuer: string; audience: string; keyDirectory: string; algorithms: string[] }
    /** `IDP_PROVIDERS`: several providers, each with its own keys, audiences and e-mail rule (`idpEmail` is unused). */
    | { kind: 'providers'; providers: IdentityProviderSettings[] };
  /**
   * When the provider's `email` claim counts as verified (only a verified address is ever stored):
   * when the claim `verifiedClaim` (`IDP_EMAIL_VERIFIED_CLAIM`, default `email_verified`) is true,
   * or, with `verifiedByIssuer` (`IDP_EMAIL_VERIFIED_BY_ISSUER`), whenever that claim is absent,
   * for a provider that puts only addresses it verified in `email` (Entra External ID).
   */
  idpEmail: { verifiedClaim: string; verifiedByIssuer: boolean };
  /**
   * `CORS_ALLOWED_ORIGINS`: the browser origins (a web admin console) allowed to call the API,
   * in `scheme://host[:port]` form; empty (the default) answers no cross-origin request.
   */
  corsAllowedOrigins: string[];
  database:
    | { kind: 'mssql'; connectionString: string }
    | { kind: 'sqlite'; path: string };
  /**
   * Bring the schema up to date when the database first opens: outside production unless
   * `MIGRATE_ON_OPEN=false`; never in production, whose schema changes only through `npm run migrate`.
   */
  migrateOnOpen: boolean;
  /** `AzureWebJobsStorage`; undefined when queues are not configured (or reached by identity). */
  storageConnectionString: string | undefined;
  /**
   * How the app reaches its queues: the connection string, or (in Azure) the queue service of
   * `AzureWebJobsStorage__accountName` with the app's managed identity, as the Functions host does.
   */
  queueStorage:
    | { kind: 'connection-string'; connectionString: string }
    | { kind: 'identity'; queueServiceUri: string; clientId: string | undefined }
    | undefined;
  appInsightsConnectionString: string | undefined;
  /**
   * The OpenTelemetry (OTLP/HTTP) backend: `OTEL_EXPORTER_OTLP_ENDPOINT`, and the `service.name` of
   * what it sends (`OTEL_SERVICE_NAME`, else `SERVICE_NAME`). When set it wins over Application Insights.
   */
  otlp: { endpoint: string; serviceName: string } | undefined;
  childSecretPepper: string;
  /**
   * Threads in libuv's pool (`UV_THREADPOOL_SIZE`, default 4), which Argon2 shares with file I/O,
   * DNS and async crypto: the child secret hasher never runs more Argon2 computations at once.
   */
  threadPoolSize: number;
  /**
   * The waiting line in front of Argon2 (`HASH_QUEUE_MAX`, `HASH_QUEUE_MAX_WAIT_MS`): computations
   * waiting at most, and the longest one waits; past either, 503 with `Retry-After`.
   */
  hashQueue: { maxQueued: number; maxWaitMs: number };
  /**
   * The grace period between the platform's SIGTERM and its SIGKILL (`SHUTDOWN_GRACE_SECONDS`,
   * `terminationGracePeriodSeconds` of the container app): the shutdown schedule is derived from it
   * (`shared/settings/shutdown-timings.ts`).
   */
  shutdownGraceSeconds: number;
  newUserStatus: 'active' | 'pending_approval';
  /**
   * `BOOTSTRAP_ADMIN_SUBJECTS`: the (issuer, subject) identities made `admin` and `active` on their
   * first sign-in. Entries are `<issuer>|<subject>`, or with one provider a bare subject of its issuer.
   */
  bootstrapAdmins: BootstrapAdmin[];
  trustProxyHops: number;
  /**
   * Limits of failed adult sign-ins (`POST /api/v1/auth/session`), counted in the database across
   * instances: per client address in a sliding window, and for all addresses together per minute.
   */
  adultSignInLimits: {
    addressMaxFailures: number;
    addressWindowMs: number;
    globalMaxFailuresPerMinute: number;
  };
  port: number;
  schedules: {
    /** NCRONTAB of the approval-queue depth sample (contract section 11). */
    queueDepth: string;
    /** NCRONTAB of the sweep that records sessions that expired unseen. */
    sessionSweep: string;
    /** NCRONTAB of the check of Expo push receipts (stale device tokens show up there). */
    pushReceipts: string;
    /** NCRONTAB of the settling of SMS and e-mail deliveries whose report never came. */
    deliverySettle: string;
    /** NCRONTAB of the recovery of fan-out batches whose holder died (every 30 seconds). */
    fanoutRecovery: string;
    /** NCRONTAB of the daily cost check (once a day, after Cost Management has the day before). */
    costCheck: string;
    /** NCRONTAB of the ingress request count (every minute: the error-rate alert reads the latest). */
    ingressMetrics: string;
  };
  /**
   * The ingress request count (`shared/ingress/`): the container app whose `Requests` metric it reads
   * with the app's identity, and the regional metrics endpoint; undefined: no count.
   */
  ingressMetrics: { resourceId: string; endpoint: string; clientId: string | undefined } | undefined;
  /**
   * The daily cost check (`shared/cost/`): the ARM scope whose actual cost it reads with the app's
   * identity (`COST_SCOPE`, undefined: no check), and the expected monthly cost it compares each day
   * with (`COST_EXPECTED_MONTHLY_USD`, the budget's amount).
   */
  cost: { scope: string | undefined; clientId: string | undefined; expectedMonthlyUsd: number };
  notifications: {
    /** Recipients per fan-out batch message, so scaled-out instances share a large audience. */
    batchSize: number;
    smsMonthlyCapUsd: number;
    smsUnitCostUsd: number;
    /** Base URL of the Expo push service (`/send`, `/getReceipts` below it). */
    expoPushUrl: string;
    expoAccessToken: string | undefined;
    /**
     * How Azure Communication Services is reached: in Azure by `ACS_ENDPOINT` with the app's managed
     * identity (no key anywhere); locally by an `endpoint=…;accesskey=…` connection string.
     */
    acs: AcsAccess | undefined;
    acsSmsFrom: string | undefined;
    acsEmailSender: string | undefined;
    /**
     * True when a channel has no provider settings outside production: deliveries go to the
     * database outbox and the log instead, so the whole flow runs locally.
     */
    useOutbox: boolean;
  };
  /**
   * `CONSENT_TERMS_VERSION`: the version of the terms a parent accepts when creating a child or
   * changing its sections, recorded with each consent. Required in production (a record must name
   * the terms the parent actually saw); `development` elsewhere.
   */
  consentTermsVersion: string;
}

/** `config.notifications.acs`: a connection string (development), or the endpoint and the managed identity. */
export type AcsAccess =
  | { kind: 'connection-string'; connectionString: string; endpoint: string }
  | { kind: 'identity'; endpoint: string; clientId: string | undefined };

/** Thrown for bad configuration: a bug of the deployment, not of a request. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }

  /**
   * The names of the settings to fix, in the order of the problems: what a log line may carry
   * (a problem's own text names settings and says what is expected, never a value).
   */
  get settings(): string[] {
    const known = new Set(Object.keys(envSchema.shape));
    const names = this.problems.flatMap((problem) =>
      (problem.split(':', 1)[0] ?? '').split(/[^A-Za-z0-9_]+/).filter((word) => known.has(word)),
    );
    return [...new Set(names)];
  }
}

/**
 * Parses and validates the environment. Throws `ConfigError` listing every setting to fix.
 * @param env the variables to read; the composition root passes `process.env`.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const parsed = envSchema.safeParse(presentSettings(env));
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`),
    );
  }
  const e = parsed.data;
  const problems: string[] = [];
  const production = e.APP_ENV === 'production';

  if (e.LOG_LEVEL === 'debug' && production && !e.ALLOW_DEBUG_IN_PRODUCTION) {
    problems.push('LOG_LEVEL: debug is refused in production; set ALLOW_DEBUG_IN_PRODUCTION=true to allow it');
  }
  const algorithms = e.IDP_ALGORITHMS.length > 0 ? e.IDP_ALGORITHMS : ['RS256'];
  const providers = parseIdentityProviders(
    env,
    { algorithms, emailVerification: { verifiedClaim: e.IDP_EMAIL_VERIFIED_CLAIM, verifiedByIssuer: e.IDP_EMAIL_VERIFIED_BY_ISSUER } },
    production,
    problems,
  );
  if (providers && (e.IDP_ISSUER || e.IDP_AUDIENCE || e.IDP_JWKS_URI)) {
    problems.push('IDP_PROVIDERS: set either IDP_PROVIDERS or IDP_ISSUER, IDP_AUDIENCE and IDP_JWKS_URI (one provider), not both');
  }
  // Checked here, while the app loads, rather than when the telemetry facade is made (the app's
  // start hook): a bad setting must stop the app before it registers anything.
  if (e.APPLICATIONINSIGHTS_CONNECTION_STRING && !e.OTEL_EXPORTER_OTLP_ENDPOINT && !hasInstrumentationKey(e.APPLICATIONINSIGHTS_CONNECTION_STRING)) {
    problems.push('APPLICATIONINSIGHTS_CONNECTION_STRING: has no valid InstrumentationKey (a GUID)');
  }
  const corsProblem = e.CORS_ALLOWED_ORIGINS.find((origin) => !isOrigin(origin, production));
  if (corsProblem !== undefined) {
    problems.push('CORS_ALLOWED_ORIGINS: each entry must be an origin, scheme://host[:port] with no path (https:// in production; * is refused)');
  }
  if (production && !providers) {
    if (!e.IDP_ISSUER) problems.push('IDP_ISSUER: required in production (the expected `iss` of ID tokens), or IDP_PROVIDERS');
    if (!e.IDP_AUDIENCE) problems.push('IDP_AUDIENCE: required in production (the expected `aud` of ID tokens), or IDP_PROVIDERS');
    if (!e.IDP_JWKS_URI) problems.push("IDP_JWKS_URI: required in production (the identity provider's JWKS URL), or IDP_PROVIDERS");
    else if (!e.IDP_JWKS_URI.startsWith('https://')) problems.push('IDP_JWKS_URI: must be an https:// URL in production');
  }
  if (production && e.MIGRATE_ON_OPEN === 'true') {
    problems.push('MIGRATE_ON_OPEN: production never migrates on open (run `npm run migrate` in the release)');
  }
  if (production) {
    if (!e.SQL_CONNECTION_STRING) {
      problems.push('SQL_CONNECTION_STRING: required in production (the embedded SQLite database is for development)');
    }
    if (!e.CHILD_SECRET_PEPPER) {
      problems.push('CHILD_SECRET_PEPPER: required in production (a secret-store reference, at least 32 characters)');
    } else if (e.CHILD_SECRET_PEPPER.length < 32) {
      problems.push('CHILD_SECRET_PEPPER: must be at least 32 characters');
    }
    if (!e.AzureWebJobsStorage && !e.AzureWebJobsStorage__accountName && !e.AzureWebJobsStorage__queueServiceUri) {
      problems.push('AzureWebJobsStorage__accountName (or AzureWebJobsStorage): required in production (the queue storage account)');
    }
    if (e.AzureWebJobsStorage === DEVELOPMENT_STORAGE) {
      problems.push('AzureWebJobsStorage: development storage is not allowed in production');
    }
    if (e.LOG_PRETTY) problems.push('LOG_PRETTY: pretty logs are for development only');
    if (!e.ACS_ENDPOINT && !e.ACS_CONNECTION_STRING) {
      problems.push('ACS_ENDPOINT: required in production (Azure Communication Services, for SMS and e-mail, reached with the managed identity)');
    }
    if (e.ACS_ENDPOINT && !e.ACS_ENDPOINT.startsWith('https://')) problems.push('ACS_ENDPOINT: must be an https:// URL in production');
    if (!e.ACS_SMS_FROM) problems.push('ACS_SMS_FROM: required in production (the sending phone number)');
    if (!e.ACS_EMAIL_SENDER) problems.push('ACS_EMAIL_SENDER: required in production (the sending e-mail address)');
    if (!e.CONSENT_TERMS_VERSION) {
      problems.push('CONSENT_TERMS_VERSION: required in production (the version of the terms parents accept, recorded with each consent)');
    }
  } else if (e.IDP_JWKS_URI && (!e.IDP_ISSUER || !e.IDP_AUDIENCE)) {
    problems.push('IDP_ISSUER and IDP_AUDIENCE: required whenever IDP_JWKS_URI is set');
  }
  const acs = acsAccessOf(e, problems);
  const singleIssuer = providers ? undefined : (e.IDP_ISSUER ?? (e.IDP_JWKS_URI ? '' : DEV_IDP_ISSUER));
  const knownIssuers = providers?.every((provider) => provider.issuer !== undefined)
    ? providers.map((provider) => provider.issuer ?? '')
    : undefined;
  const bootstrapAdmins = parseBootstrapAdmins(e.BOOTSTRAP_ADMIN_SUBJECTS, { singleIssuer, knownIssuers }, problems);
  if (problems.length > 0) throw new ConfigError(problems);

  const storageConnectionString =
    e.AzureWebJobsStorage ??
    (e.APP_ENV === 'development' && !e.AzureWebJobsStorage__accountName && !e.AzureWebJobsStorage__queueServiceUri
      ? DEVELOPMENT_STORAGE
      : undefined);
  if (algorithms.some(isUnsafeAlgorithm)) {
    throw new ConfigError(['IDP_ALGORITHMS: "none" and HMAC (HS*) algorithms cannot verify provider tokens; use asymmetric algorithms']);
  }

  return {
    appEnv: e.APP_ENV,
    serviceName: e.SERVICE_NAME,
    logLevel: e.LOG_LEVEL,
    logPretty: e.LOG_PRETTY,
    idp: providers
      ? { kind: 'providers', providers }
      : e.IDP_JWKS_URI
      ? { kind: 'remote', issuer: e.IDP_ISSUER ?? '', audience: e.IDP_AUDIENCE ?? '', jwksUri: e.IDP_JWKS_URI, algorithms }
      : {
          kind: 'development',
          issuer: e.IDP_ISSUER ?? DEV_IDP_ISSUER,
          audience: e.IDP_AUDIENCE ?? DEV_IDP_AUDIENCE,
          keyDirectory: DEV_IDP_KEY_DIRECTORY,
          algorithms: ['RS256'],
        },
    idpEmail: { verifiedClaim: e.IDP_EMAIL_VERIFIED_CLAIM, verifiedByIssuer: e.IDP_EMAIL_VERIFIED_BY_ISSUER },
    corsAllowedOrigins: e.CORS_ALLOWED_ORIGINS.map((origin) => new URL(origin).origin),
    database: e.SQL_CONNECTION_STRING
      ? { kind: 'mssql', connectionString: e.SQL_CONNECTION_STRING }
      : { kind: 'sqlite', path: e.SQLITE_PATH },
    migrateOnOpen: !production && e.MIGRATE_ON_OPEN !== 'false',
    storageConnectionString,
    queueStorage: queueStorageOf(e, storageConnectionString),
    appInsightsConnectionString: e.APPLICATIONINSIGHTS_CONNECTION_STRING,
    otlp: e.OTEL_EXPORTER_OTLP_ENDPOINT
      ? { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: e.OTEL_SERVICE_NAME ?? e.SERVICE_NAME }
      : undefined,
    childSecretPepper: e.CHILD_SECRET_PEPPER ?? DEV_CHILD_SECRET_PEPPER,
    threadPoolSize: e.UV_THREADPOOL_SIZE,
    hashQueue: { maxQueued: e.HASH_QUEUE_MAX, maxWaitMs: e.HASH_QUEUE_MAX_WAIT_MS },
    shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
    newUserStatus: e.NEW_USER_STATUS,
    bootstrapAdmins,
    trustProxyHops: e.TRUST_PROXY_HOPS,
    adultSignInLimits: {
      addressMaxFailures: e.ADULT_SIGN_IN_ADDRESS_MAX_FAILURES,
      addressWindowMs: e.ADULT_SIGN_IN_ADDRESS_WINDOW_MINUTES * 60 * 1000,
      globalMaxFailuresPerMinute: e.ADULT_SIGN_IN_GLOBAL_MAX_FAILURES_PER_MINUTE,
    },
    port: e.PORT,
    schedules: {
      queueDepth: e.QUEUE_DEPTH_SCHEDULE,
      sessionSweep: e.SESSION_SWEEP_SCHEDULE,
      pushReceipts: e.PUSH_RECEIPTS_SCHEDULE,
      deliverySettle: e.DELIVERY_SETTLE_SCHEDULE,
      fanoutRecovery: e.FANOUT_RECOVERY_SCHEDULE,
      costCheck: e.COST_CHECK_SCHEDULE,
      ingressMetrics: e.INGRESS_METRICS_SCHEDULE,
    },
    ingressMetrics:
      e.INGRESS_METRICS_RESOURCE_ID && e.INGRESS_METRICS_ENDPOINT
        ? { resourceId: e.INGRESS_METRICS_RESOURCE_ID, endpoint: e.INGRESS_METRICS_ENDPOINT.replace(/\/+$/, ''), clientId: e.AZURE_CLIENT_ID }
        : undefined,
    cost: { scope: e.COST_SCOPE, clientId: e.AZURE_CLIENT_ID, expectedMonthlyUsd: e.COST_EXPECTED_MONTHLY_USD },
    notifications: {
      batchSize: e.FANOUT_BATCH_SIZE,
      smsMonthlyCapUsd: e.SMS_MONTHLY_CAP_USD,
      smsUnitCostUsd: e.SMS_UNIT_COST_USD,
      expoPushUrl: e.EXPO_PUSH_URL.replace(/\/+$/, ''),
      expoAccessToken: e.EXPO_ACCESS_TOKEN,
      acs,
      acsSmsFrom: e.ACS_SMS_FROM,
      acsEmailSender: e.ACS_EMAIL_SENDER,
      useOutbox: !production && acs === undefined,
    },
    consentTermsVersion: e.CONSENT_TERMS_VERSION ?? DEV_CONSENT_TERMS_VERSION,
  };
}

/** An origin as browsers send it in `Origin`: scheme, host and port only. */
function isOrigin(value: string, production: boolean): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.protocol !== 'https:' && (production || url.protocol !== 'http:')) return false;
  return url.origin === value.replace(/\/$/, '') && url.username === '' && url.password === '';
}

function queueStorageOf(e: z.infer<typeof envSchema>, connectionString: string | undefined): Config['queueStorage'] {
  if (connectionString) return { kind: 'connection-string', connectionString };
  const queueServiceUri =
    e.AzureWebJobsStorage__queueServiceUri ??
    (e.AzureWebJobsStorage__accountName ? `https://${e.AzureWebJobsStorage__accountName}.queue.core.windows.net` : undefined);
  if (!queueServiceUri) return undefined;
  return { kind: 'identity', queueServiceUri, clientId: e.AzureWebJobsStorage__clientId ?? e.AZURE_CLIENT_ID };
}

/**
 * ACS access from `ACS_ENDPOINT` (managed identity; wins when both are set) or
 * `ACS_CONNECTION_STRING`. A malformed connection string is a problem named here, never quoted:
 * it holds the access key.
 */
function acsAccessOf(e: z.infer<typeof envSchema>, problems: string[]): AcsAccess | undefined {
  if (e.ACS_ENDPOINT) {
    return { kind: 'identity', endpoint: e.ACS_ENDPOINT.replace(/\/+$/, ''), clientId: e.AZURE_CLIENT_ID };
  }
  if (!e.ACS_CONNECTION_STRING) return undefined;
  // The shape the ACS SDKs parse (`parseConnectionString` of @azure/communication-common): endpoint first.
  const match = /^endpoint=(.+);accesskey=(.+)$/i.exec(e.ACS_CONNECTION_STRING);
  const endpoint = match?.[1]?.trim();
  const accessKey = match?.[2]?.trim();
  if (!endpoint || !accessKey || !URL.canParse(endpoint) || !/^[A-Za-z0-9+/]+={0,2}$/.test(accessKey)) {
    problems.push('ACS_CONNECTION_STRING: must look like endpoint=https://…;accesskey=<base64>');
    return undefined;
  }
  if (e.APP_ENV === 'production' && !endpoint.startsWith('https://')) {
    problems.push('ACS_CONNECTION_STRING: the endpoint must be an https:// URL in production');
    return undefined;
  }
  return { kind: 'connection-string', connectionString: e.ACS_CONNECTION_STRING, endpoint: endpoint.replace(/\/+$/, '') };
}
