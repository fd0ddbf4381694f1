import {
  APP_ENVS,
  declaredDefault,
  LOG_LEVELS,
  missingInProduction,
  presentSettings,
  SETTINGS,
  settingsSchema,
  type AppEnv,
  type LogLevel,
  type ParsedSettings,
} from './settings/setting-declarations';
import { parseBootstrapAdmins } from './settings/bootstrap-admins';
import { isUnsafeAlgorithm, parseIdentityProviders, type IdentityProviderSettings } from './settings/provider-settings';
import { hasInstrumentationKey } from './settings/app-insights-connection';

/**
 * The one place that reads the environment. Every setting is declared once, in
 * `settings/setting-declarations.ts` (name, schema, default, meaning); this module checks what no
 * single setting can (settings that go together, production's rules) and maps them to `Config`,
 * whose type is derived from that mapping. Every other module receives the parsed `Config` (or a
 * slice of it) from the composition root, so a setting is validated once, at start-up, and a
 * missing production secret stops the app with a message that names the setting.
 */

export { APP_ENVS, LOG_LEVELS, type AppEnv, type LogLevel };

/** The `service` of log lines when `SERVICE_NAME` is unset (and of the line saying the settings are invalid). */
export const DEFAULT_SERVICE_NAME = declaredDefault('SERVICE_NAME');

/** Development storage: Azurite's well-known account, as the Functions tooling spells it. */
export const DEVELOPMENT_STORAGE = 'UseDevelopmentStorage=true';

/** The built-in development identity provider (never in production: IDP_JWKS_URI is required there). */
export const DEV_IDP_ISSUER = 'http://localhost:7071/dev-idp';
export const DEV_IDP_AUDIENCE = 'community-platform-dev';
export const DEV_IDP_KEY_DIRECTORY = '.data/dev-idp';

/** The terms version outside production when none is set: plainly not a real version of the terms. */
export const DEV_CONSENT_TERMS_VERSION: string = SETTINGS.CONSENT_TERMS_VERSION.developmentDefault;

/**
 * The identity provider whose ID tokens the adult sign-in accepts: a remote JWKS in production,
 * or, outside production with no `IDP_JWKS_URI`, the built-in development provider whose key pair
 * lives under `keyDirectory`; or, with `IDP_PROVIDERS`, several providers, each with its own keys,
 * audiences and e-mail rule (`idpEmail` is then unused).
 */
export type IdpSettings =
  | { kind: 'remote'; issuer: string; audience: string; jwksUri: string; algorithms: string[] }
  | { kind: 'development'; issuer: string; audience: string; keyDirectory: string; algorithms: string[] }
  | { kind: 'providers'; providers: IdentityProviderSettings[] };

/** The database: SQL Server in production, the embedded SQLite file elsewhere. */
export type DatabaseSettings = { kind: 'mssql'; connectionString: string } | { kind: 'sqlite'; path: string };

/**
 * How the app reaches its queues: the connection string, or (in Azure) the queue service of
 * `AzureWebJobsStorage__accountName` with the app's managed identity, as the Functions host does.
 */
export type QueueStorageSettings =
  | { kind: 'connection-string'; connectionString: string }
  | { kind: 'identity'; queueServiceUri: string; clientId: string | undefined }
  | undefined;

/** `config.notifications.acs`: a connection string (development), or the endpoint and the managed identity. */
export type AcsAccess =
  | { kind: 'connection-string'; connectionString: string; endpoint: string }
  | { kind: 'identity'; endpoint: string; clientId: string | undefined };

/** The parsed, validated settings of one process (what `configOf` makes of the declared settings). */
export type Config = ReturnType<typeof configOf>;

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
    const known = new Set(Object.keys(SETTINGS));
    const names = this.problems.flatMap((problem) =>
      (problem.split(':', 1)[0] ?? '').split(/[^A-Za-z0-9_]+/).filter((word) => known.has(word)),
    );
    return [...new Set(names)];
  }
}

/**
 * Parses and validates the environment. Throws `ConfigError` listing every setting to fix.
 * @param env the variables to read; `loadProcessConfig` passes `process.env`.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const present = presentSettings(env);
  const parsed = settingsSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`),
    );
  }
  const e = parsed.data;
  const problems: string[] = [];
  const production = e.APP_ENV === 'production';
  const algorithms = e.IDP_ALGORITHMS.length > 0 ? e.IDP_ALGORITHMS : declaredDefault('IDP_ALGORITHMS');
  const providers = parseIdentityProviders(
    env,
    { algorithms, emailVerification: { verifiedClaim: e.IDP_EMAIL_VERIFIED_CLAIM, verifiedByIssuer: e.IDP_EMAIL_VERIFIED_BY_ISSUER } },
    production,
    problems,
  );
  crossCheck(e, { production, providers: providers !== undefined, present }, problems);
  const acs = acsAccessOf(e, problems);
  const singleIssuer = providers ? undefined : (e.IDP_ISSUER ?? (e.IDP_JWKS_URI ? '' : DEV_IDP_ISSUER));
  const knownIssuers = providers?.every((provider) => provider.issuer !== undefined)
    ? providers.map((provider) => provider.issuer ?? '')
    : undefined;
  const bootstrapAdmins = parseBootstrapAdmins(e.BOOTSTRAP_ADMIN_SUBJECTS, { singleIssuer, knownIssuers }, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  if (algorithms.some(isUnsafeAlgorithm)) {
    throw new ConfigError(['IDP_ALGORITHMS: "none" and HMAC (HS*) algorithms cannot verify provider tokens; use asymmetric algorithms']);
  }
  return configOf(e, { production, algorithms, providers, acs, bootstrapAdmins });
}

/** The process's settings, from its environment: the one read of `process.env`. */
export function loadProcessConfig(): Config {
  return loadConfig(process.env);
}

/**
 * What no single setting's schema can check: settings that go together, and production's rules.
 * Each problem names its settings first and says what is expected, never the value.
 */
function crossCheck(
  e: ParsedSettings,
  context: { production: boolean; providers: boolean; present: Readonly<Record<string, string>> },
  problems: string[],
): void {
  const { production, providers } = context;
  if (e.LOG_LEVEL === 'debug' && production && !e.ALLOW_DEBUG_IN_PRODUCTION) {
    problems.push('LOG_LEVEL: debug is refused in production; set ALLOW_DEBUG_IN_PRODUCTION=true to allow it');
  }
  if (providers && (e.IDP_ISSUER || e.IDP_AUDIENCE || e.IDP_JWKS_URI)) {
    problems.push('IDP_PROVIDERS: set either IDP_PROVIDERS or IDP_ISSUER, IDP_AUDIENCE and IDP_JWKS_URI (one provider), not both');
  }
  // Checked here, while the app loads, rather than when the telemetry facade is made (the app's
  // start hook): a bad setting must stop the app before it registers anything.
  if (e.APPLICATIONINSIGHTS_CONNECTION_STRING && !e.OTEL_EXPORTER_OTLP_ENDPOINT && !hasInstrumentationKey(e.APPLICATIONINSIGHTS_CONNECTION_STRING)) {
    problems.push('APPLICATIONINSIGHTS_CONNECTION_STRING: has no valid InstrumentationKey (a GUID)');
  }
  if (e.CORS_ALLOWED_ORIGINS.some((origin) => !isOrigin(origin, production))) {
    problems.push('CORS_ALLOWED_ORIGINS: each entry must be an origin, scheme://host[:port] with no path (https:// in production; * is refused)');
  }
  if (!production) {
    if (e.IDP_JWKS_URI && (!e.IDP_ISSUER || !e.IDP_AUDIENCE)) problems.push('IDP_ISSUER and IDP_AUDIENCE: required whenever IDP_JWKS_URI is set');
    return;
  }
  if (!providers) {
    if (!e.IDP_ISSUER) problems.push('IDP_ISSUER: required in production (the expected `iss` of ID tokens), or IDP_PROVIDERS');
    if (!e.IDP_AUDIENCE) problems.push('IDP_AUDIENCE: required in production (the expected `aud` of ID tokens), or IDP_PROVIDERS');
    if (!e.IDP_JWKS_URI) problems.push("IDP_JWKS_URI: required in production (the identity provider's JWKS URL), or IDP_PROVIDERS");
    else if (!e.IDP_JWKS_URI.startsWith('https://')) problems.push('IDP_JWKS_URI: must be an https:// URL in production');
  }
  if (e.MIGRATE_ON_OPEN === 'true') {
    problems.push('MIGRATE_ON_OPEN: production never migrates on open (run `npm run migrate` in the release)');
  }
  problems.push(...missingInProduction(context.present));
  if (e.CHILD_SECRET_PEPPER && e.CHILD_SECRET_PEPPER.length < 32) problems.push('CHILD_SECRET_PEPPER: must be at least 32 characters');
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
}

/** Values `loadConfig` worked out before the mapping: the checks' by-products. */
interface Derived {
  production: boolean;
  algorithms: string[];
  providers: IdentityProviderSettings[] | undefined;
  acs: AcsAccess | undefined;
  bootstrapAdmins: ReturnType<typeof parseBootstrapAdmins>;
}

/** The settings as the app's modules take them; `Config` is this function's result type. */
function configOf(e: ParsedSettings, derived: Derived) {
  const { production, algorithms, providers, acs } = derived;
  const idp: IdpSettings = providers
    ? { kind: 'providers', providers }
    : e.IDP_JWKS_URI
      ? { kind: 'remote', issuer: e.IDP_ISSUER ?? '', audience: e.IDP_AUDIENCE ?? '', jwksUri: e.IDP_JWKS_URI, algorithms }
      : {
          kind: 'development',
          issuer: e.IDP_ISSUER ?? DEV_IDP_ISSUER,
          audience: e.IDP_AUDIENCE ?? DEV_IDP_AUDIENCE,
          keyDirectory: DEV_IDP_KEY_DIRECTORY,
          algorithms: ['RS256'],
        };
  const database: DatabaseSettings = e.SQL_CONNECTION_STRING
    ? { kind: 'mssql', connectionString: e.SQL_CONNECTION_STRING }
    : { kind: 'sqlite', path: e.SQLITE_PATH };
  const storageConnectionString: string | undefined =
    e.AzureWebJobsStorage ??
    (e.APP_ENV === 'development' && !e.AzureWebJobsStorage__accountName && !e.AzureWebJobsStorage__queueServiceUri
      ? DEVELOPMENT_STORAGE
      : undefined);
  const ingressMetrics: { resourceId: string; endpoint: string; clientId: string | undefined } | undefined =
    e.INGRESS_METRICS_RESOURCE_ID && e.INGRESS_METRICS_ENDPOINT
      ? { resourceId: e.INGRESS_METRICS_RESOURCE_ID, endpoint: e.INGRESS_METRICS_ENDPOINT.replace(/\/+$/, ''), clientId: e.AZURE_CLIENT_ID }
      : undefined;
  const otlp: { endpoint: string; serviceName: string } | undefined = e.OTEL_EXPORTER_OTLP_ENDPOINT
    ? { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: e.OTEL_SERVICE_NAME ?? e.SERVICE_NAME }
    : undefined;
  return {
    appEnv: e.APP_ENV,
    serviceName: e.SERVICE_NAME,
    logLevel: e.LOG_LEVEL,
    /** Human-readable logs for a developer's terminal; never the production format. */
    logPretty: e.LOG_PRETTY,
    idp,
    /** When the provider's `email` claim counts as verified (only a verified address is ever stored). */
    idpEmail: { verifiedClaim: e.IDP_EMAIL_VERIFIED_CLAIM, verifiedByIssuer: e.IDP_EMAIL_VERIFIED_BY_ISSUER },
    /** The browser origins allowed to call the API; empty answers no cross-origin request. */
    corsAllowedOrigins: e.CORS_ALLOWED_ORIGINS.map((origin) => new URL(origin).origin),
    database,
    /** Never in production, whose schema changes only through `npm run migrate`. */
    migrateOnOpen: !production && e.MIGRATE_ON_OPEN !== 'false',
    /** `AzureWebJobsStorage`; undefined when queues are not configured (or reached by identity). */
    storageConnectionString,
    queueStorage: queueStorageOf(e, storageConnectionString),
    appInsightsConnectionString: e.APPLICATIONINSIGHTS_CONNECTION_STRING,
    /** The OpenTelemetry (OTLP/HTTP) backend; when set it wins over Application Insights. */
    otlp,
    /**
     * `CHILD_SECRET_PEPPER`: the pepper of child secret hashes, and the key of the HMAC under which
     * the sign-in throttles keep client addresses.
     */
    // Never empty: production requires it, elsewhere it has its development default.
    hashingSecret: e.CHILD_SECRET_PEPPER ?? '',
    /** Threads in libuv's pool, which Argon2 shares: the hasher never runs more computations at once. */
    threadPoolSize: e.UV_THREADPOOL_SIZE,
    /** The waiting line in front of Argon2; past either limit, 503 with `Retry-After`. */
    hashQueue: { maxQueued: e.HASH_QUEUE_MAX, maxWaitMs: e.HASH_QUEUE_MAX_WAIT_MS },
    /** The shutdown schedule is derived from it (`shared/settings/shutdown-timings.ts`). */
    shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
    newUserStatus: e.NEW_USER_STATUS,
    /** The (issuer, subject) identities made `admin` and `active` on their first sign-in. */
    bootstrapAdmins: derived.bootstrapAdmins,
    trustProxyHops: e.TRUST_PROXY_HOPS,
    /** Failed adult sign-ins, counted in the database across instances: per address and for all. */
    adultSignInLimits: {
      addressMaxFailures: e.ADULT_SIGN_IN_ADDRESS_MAX_FAILURES,
      addressWindowMs: e.ADULT_SIGN_IN_ADDRESS_WINDOW_MINUTES * 60 * 1000,
      globalMaxFailuresPerMinute: e.ADULT_SIGN_IN_GLOBAL_MAX_FAILURES_PER_MINUTE,
    },
    port: e.PORT,
    /** The API reference page (`GET /api/docs`): always outside production, in production when `API_DOCS_IN_PRODUCTION` says so. */
    apiDocsPage: !production || e.API_DOCS_IN_PRODUCTION,
    /** NCRONTAB schedules of the timers. */
    schedules: {
      queueDepth: e.QUEUE_DEPTH_SCHEDULE,
      sessionSweep: e.SESSION_SWEEP_SCHEDULE,
      pushReceipts: e.PUSH_RECEIPTS_SCHEDULE,
      deliverySettle: e.DELIVERY_SETTLE_SCHEDULE,
      fanoutRecovery: e.FANOUT_RECOVERY_SCHEDULE,
      costCheck: e.COST_CHECK_SCHEDULE,
      ingressMetrics: e.INGRESS_METRICS_SCHEDULE,
    },
    /** The ingress request count (`shared/ingress/`); undefined: no count. */
    ingressMetrics,
    /** The daily cost check (`shared/cost/`); no `scope`: no check. */
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
      /** Outside production without provider settings: deliveries go to the database outbox and the log. */
      useOutbox: !production && acs === undefined,
    },
    /** The version of the terms a parent accepts, recorded with each consent. */
    // Never empty: production requires it, elsewhere it has its development default.
    consentTermsVersion: e.CONSENT_TERMS_VERSION ?? '',
  };
}

/** An origin as browsers send it in `Origin`: scheme, host and port only. */
function isOrigin(value: string, production: boolean): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.protocol !== 'https:' && (production || url.protocol !== 'http:')) return false;
  return url.origin === value.replace(/\/$/, '') && url.username === '' && url.password === '';
}

function queueStorageOf(e: ParsedSettings, connectionString: string | undefined): QueueStorageSettings {
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
function acsAccessOf(e: ParsedSettings, problems: string[]): AcsAccess | undefined {
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
