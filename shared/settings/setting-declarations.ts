import * as z from 'zod/mini';
import { absoluteUrl, amount, booleanFlag, commaList, optionalMatching, optionalString, wholeNumber } from './setting-schemas';

/**
 * Every setting the app reads, declared once: its name, value schema, default, what it means (one
 * line, for `docs/configuration.md`) and its group (the concern it belongs to). `shared/config.ts`
 * derives the environment schema and the `Config` type from these declarations;
 * `npm run docs:config` writes the configuration page from them, and a test checks that page and
 * `local.settings.example.json` against them.
 */

export const APP_ENVS = ['development', 'test', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The concerns settings are grouped by, in the order the configuration page lists them. */
export const SETTING_GROUPS = {
  runtime: 'Runtime and logs',
  identity: 'Identity providers',
  users: 'Users, administrators and consent',
  requests: 'Requests: browsers and client addresses',
  signIn: 'Sign-in limits and child secrets',
  database: 'Database',
  queues: 'Queues and the app identity',
  telemetry: 'Telemetry',
  notifications: 'Notifications',
  timers: 'Timers',
  checks: 'Cost and ingress checks',
  shutdown: 'Shutdown',
} as const;
export type SettingGroup = keyof typeof SETTING_GROUPS;

/** One setting's declaration. */
export interface SettingDeclaration<S extends z.ZodMiniType = z.ZodMiniType> {
  group: SettingGroup;
  /** Reads the setting's text (blank counts as unset). */
  schema: S;
  /** The text used when the setting is unset, checked by `schema` like any value. */
  default?: string;
  /** Used outside production when unset; production requires the setting (`requiredInProduction`). */
  developmentDefault?: string;
  /** Why production refuses to start without it: the start-up error's parenthesis. */
  requiredInProduction?: string;
  /** What the page says when unset and there is no default (or how it shows the default). */
  unset?: string;
  /** What it means: one line of the configuration page. */
  doc: string;
  /** Its value in `local.settings.example.json` when not the default (or blank). */
  example?: string;
}

const setting = <S extends z.ZodMiniType, D extends SettingDeclaration<S>>(declaration: D & SettingDeclaration<S>): D => declaration;

/** The default schedule's settings: NCRONTAB text (six fields, seconds first). */
const schedule = (group: SettingGroup, fallback: string, doc: string) => setting({ group, schema: z.string(), default: fallback, doc });

/** The settings, grouped by concern. */
export const SETTINGS = {
  APP_ENV: setting({ group: 'runtime', schema: z.enum(APP_ENVS), default: 'development', doc: '`development`, `test` or `production`; production refuses development-only values and requires its secrets' }),
  SERVICE_NAME: setting({ group: 'runtime', schema: z.string().check(z.minLength(1), z.maxLength(64)), default: 'api', doc: 'the `service` field of log lines (and of the line saying the settings are invalid)' }),
  LOG_LEVEL: setting({ group: 'runtime', schema: z.enum(LOG_LEVELS), default: 'info', doc: '`error`, `warn`, `info`, `debug`; `debug` is refused in production unless `ALLOW_DEBUG_IN_PRODUCTION=true`' }),
  ALLOW_DEBUG_IN_PRODUCTION: setting({ group: 'runtime', schema: booleanFlag(), default: 'false', doc: '`true` lets production log at `debug` (for a short investigation)' }),
  LOG_PRETTY: setting({ group: 'runtime', schema: booleanFlag(), default: 'false', doc: 'human-readable logs through pino-pretty (development only; production refuses it)' }),
  API_DOCS_IN_PRODUCTION: setting({ group: 'runtime', schema: booleanFlag(), default: 'false', doc: '`true` serves the API reference page (`GET /api/docs`, docs/api.md) in production too; outside production it is always served. Off: 404, as an unknown path' }),
  PORT: setting({ group: 'runtime', schema: wholeNumber(0, 65535, 'a port number'), default: '7071', doc: 'port of the project\'s own local host (`0` picks a free one)' }),

  IDP_ISSUER: setting({ group: 'identity', schema: optionalString(), unset: 'required in production, unless `IDP_PROVIDERS` is set; the development provider\'s outside production', doc: 'expected `iss` of identity-provider tokens (one provider)' }),
  IDP_AUDIENCE: setting({ group: 'identity', schema: optionalString(), unset: 'required in production, unless `IDP_PROVIDERS` is set; the development provider\'s outside production', doc: 'expected `aud` of identity-provider tokens (one provider)' }),
  IDP_JWKS_URI: setting({ group: 'identity', schema: z.optional(absoluteUrl()), unset: 'required in production (https://), unless `IDP_PROVIDERS` is set; unset: the built-in development provider', doc: 'the identity provider\'s JWKS URL (one provider); `IDP_ISSUER` and `IDP_AUDIENCE` are then required' }),
  IDP_ALGORITHMS: setting({ group: 'identity', schema: commaList(), default: 'RS256', doc: 'allowed JWS algorithms, comma separated (no `none`, no HMAC)' }),
  // A claim name as providers spell them: a short word or a namespaced URI (Auth0's custom claims), never blank.
  IDP_EMAIL_VERIFIED_CLAIM: setting({
    group: 'identity',
    schema: z.string().check(z.trim(), z.regex(/^\S{1,256}$/, { message: 'must be a claim name (no spaces, at most 256 characters)' })),
    default: 'email_verified',
    doc: 'the ID-token claim that must be `true` for `email` to be stored (e.g. `xms_edov` for Entra ID; see docs/decisions.md)',
  }),
  IDP_EMAIL_VERIFIED_BY_ISSUER: setting({ group: 'identity', schema: booleanFlag(), default: 'false', doc: '`true` when the provider puts only addresses it verified in `email` (Entra External ID): an `email` without `IDP_EMAIL_VERIFIED_CLAIM` counts as verified, one with that claim not `true` still does not' }),
  // Several providers: a JSON array, or numbered IDP_PROVIDERS__<n>__<FIELD> settings (parsed in provider-settings.ts).
  IDP_PROVIDERS: setting({
    group: 'identity',
    schema: optionalString(),
    doc:
      'several identity providers: a JSON array of `{ name?, issuer?, audiences, jwksUri \\| discoveryUrl, algorithms?, emailVerifiedClaim?, emailVerifiedByIssuer?, nonceRequired? }`, ' +
      'or the numbered settings `IDP_PROVIDERS__<n>__ISSUER`, `__AUDIENCES` (comma separated), `__JWKS_URI`, `__DISCOVERY_URL`, `__ALGORITHMS`, `__EMAIL_VERIFIED_CLAIM`, `__EMAIL_VERIFIED_BY_ISSUER`, `__NONCE_REQUIRED`, `__NAME` (from 0). ' +
      '`IDP_ALGORITHMS` and `IDP_EMAIL_VERIFIED_*` are the defaults of fields left out; refused together with `IDP_ISSUER`/`IDP_AUDIENCE`/`IDP_JWKS_URI`. Per provider settings and tests: docs/identity-providers.md',
  }),

  NEW_USER_STATUS: setting({ group: 'users', schema: z.enum(['active', 'pending_approval']), default: 'active', doc: 'status of a user created on first sign-in: `active` or `pending_approval`' }),
  BOOTSTRAP_ADMIN_SUBJECTS: setting({
    group: 'users',
    schema: commaList(),
    unset: 'empty',
    doc:
      'identities made `admin` and `active` on their first sign-in, comma-separated, each `<issuer>\\|<subject>` (the exact `iss`, then the `sub` after the first `\\|`, which may hold more: `https://tenant.auth0.com/\\|auth0\\|abc`); ' +
      'with one provider a bare `sub` also works and means that provider\'s issuer (an entry is `<issuer>\\|…` only when the text before its first `\\|` is an http(s) URL, so Auth0\'s `auth0\\|abc` is a bare subject). ' +
      'With `IDP_PROVIDERS` a bare subject is refused at start-up, and an issuer no configured provider has is refused (unless a provider is known only by its discovery document)',
  }),
  // Recorded with every consent and shown to parents: a short label, never free text.
  CONSENT_TERMS_VERSION: setting({
    group: 'users',
    schema: z.optional(
      z.string().check(
        z.trim(),
        z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/, { message: 'must be a short version label: 1 to 32 of A-Z a-z 0-9 . _ - (e.g. 2025-06)' }),
      ),
    ),
    developmentDefault: 'development',
    example: 'development',
    requiredInProduction: 'the version of the terms parents accept, recorded with each consent',
    doc: 'the version of the terms a parent accepts for a child account, recorded with each consent (1 to 32 of `A-Z a-z 0-9 . _ -`, e.g. `2025-06`); change it when the terms change: the next change of a child\'s sections records a consent under the new version (see docs/api.md, "Consent records"). No default stands in for production: a record must name the terms the parent saw',
  }),

  // Origins (scheme://host[:port]) a browser app may call the API from; empty: CORS off.
  CORS_ALLOWED_ORIGINS: setting({ group: 'requests', schema: commaList(), unset: 'empty: CORS off', doc: 'browser origins (`https://admin.example.org`, comma separated; no `*`, no path; `http://` outside production only) a web admin console may call the API from; their preflights get 204 and their answers `Access-Control-Allow-Origin`. Leave the platform\'s own CORS off' }),
  TRUST_PROXY_HOPS: setting({ group: 'requests', schema: wholeNumber(0), default: '0', doc: 'how many `X-Forwarded-For` hops to trust for the client address (`infra/` sets `1`, the Container Apps ingress; without an address all attempts share one per-address limit, see docs/decisions.md)' }),

  // The app's throttle-key secret too: one secret, so one rotation.
  CHILD_SECRET_PEPPER: setting({
    group: 'signIn',
    schema: optionalString(),
    developmentDefault: 'dev-only-pepper-not-secret-0123456789abcdef',
    requiredInProduction: 'a secret-store reference, at least 32 characters',
    unset: 'a fixed, public development value',
    doc: 'the app\'s secret pepper (secret store, at least 32 characters): it peppers child PIN/password hashes (changing it invalidates every stored one) and keys the HMAC under which sign-in throttles keep client addresses',
  }),
  ADULT_SIGN_IN_ADDRESS_MAX_FAILURES: setting({ group: 'signIn', schema: wholeNumber(1, 100_000), default: '30', doc: 'failed adult sign-ins one client address may have in the sliding window of `ADULT_SIGN_IN_ADDRESS_WINDOW_MINUTES`, then 429' }),
  ADULT_SIGN_IN_ADDRESS_WINDOW_MINUTES: setting({ group: 'signIn', schema: wholeNumber(1, 24 * 60), default: '10', doc: 'that sliding window, in minutes (1 to 1,440)' }),
  ADULT_SIGN_IN_GLOBAL_MAX_FAILURES_PER_MINUTE: setting({ group: 'signIn', schema: wholeNumber(1, 1_000_000), default: '60', doc: 'failed adult sign-ins all addresses together may have in any minute, then 429: the ceiling on `authn_login_fail` rows a flood of invalid tokens can add to the `AuditLog`' }),
  // libuv reads it itself when its pool starts; the app reads it to fit the Argon2 limit to the pool (libuv's range).
  UV_THREADPOOL_SIZE: setting({
    group: 'signIn',
    schema: wholeNumber(1, 1024),
    default: '4',
    example: '2',
    doc: 'threads of libuv\'s pool, read by libuv itself when the pool starts (so only from the environment; the default is libuv\'s). Argon2 runs there: the child secret hasher runs at most 2 computations at once, never more than the pool\'s threads, and every pool thread that ran one keeps its 19 MiB, so `infra/` and the example settings set `2` (a burst of 100 child sign-ins then adds ~40 MiB, not ~80)',
  }),
  // 128 waiting lets a class of 100 sign in at once from one address (a school's NAT): about three
  // seconds of work for two Argon2 computations at once; each waiting sign-in holds only its request.
  HASH_QUEUE_MAX: setting({ group: 'signIn', schema: wholeNumber(1, 100_000), default: '128', doc: 'the waiting line in front of Argon2 (child sign-ins, new child secrets): computations that may wait at most, all clients together. Waiting work is served round-robin across client address buckets (IPv6 by /64), so one client\'s flood waits behind itself; when the line is full the newest of the client holding the most places is refused instead of a newcomer from elsewhere. Refused work gets 503 `service_unavailable` with `Retry-After` (the wait in whole seconds) and records nothing' }),
  // 3 s keeps a waiting sign-in well inside the 10 s request budget.
  HASH_QUEUE_MAX_WAIT_MS: setting({ group: 'signIn', schema: wholeNumber(1, 60_000), default: '3000', doc: 'the longest a computation may wait in that line (ms), then 503 as above' }),

  SQL_CONNECTION_STRING: setting({
    group: 'database',
    schema: optionalString(),
    requiredInProduction: 'the embedded SQLite database is for development',
    unset: 'embedded SQLite',
    doc: 'SQL Server / Azure SQL; `Authentication=Active Directory Default` (or Managed Identity) for managed identity; `Max Pool Size=` caps each instance\'s connections',
  }),
  SQLITE_PATH: setting({ group: 'database', schema: z.string(), default: '.data/platform.sqlite', doc: 'embedded database file (without `SQL_CONNECTION_STRING`)' }),
  // Outside production the schema is brought up to date when the database first opens; false: as
  // production, never (the schema comes from `npm run migrate`). Production refuses true.
  MIGRATE_ON_OPEN: setting({
    group: 'database',
    schema: z.optional(z.enum(['true', 'false'], { message: 'must be true or false' })),
    unset: '`true` outside production, never in production',
    doc: 'outside production: `false` opens the database without bringing its schema up to date, as production does (the bench\'s first sign-ins, on a database migrated before); `true` is refused in production',
  }),

  AzureWebJobsStorage: setting({
    group: 'queues',
    schema: optionalString(),
    unset: '`UseDevelopmentStorage=true` in development',
    example: 'UseDevelopmentStorage=true',
    doc:
      'storage account for queues (Azurite locally). Azurite on another port than 10001 (the one setting both hosts and the app read, so it also works under `func start`): `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;QueueEndpoint=http://127.0.0.1:<port>/devstoreaccount1;` (Azurite\'s public development key). ' +
      'The local host starts Azurite on that port when it is free and refuses (exit 1, the reason on stderr) a port held by anything that does not answer as Azurite\'s queue service; behind `UseDevelopmentStorage=true` it also refuses an Azurite that no local host of this project started (another project\'s: its queues would be shared), which it tells by a marker with Azurite\'s process id in `.data/azurite/local-host-azurite.json`; an Azurite the connection string names explicitly is used (`devhost/azurite-ownership.ts`). Development storage is refused in production',
  }),
  AzureWebJobsStorage__accountName: setting({ group: 'queues', schema: optionalString(), doc: 'in Azure: the storage account reached with the managed identity (`AZURE_CLIENT_ID`), as the Functions host does; production requires it or `AzureWebJobsStorage`' }),
  AzureWebJobsStorage__queueServiceUri: setting({ group: 'queues', schema: z.optional(absoluteUrl()), doc: 'the queue service URL reached with the managed identity, instead of the one `AzureWebJobsStorage__accountName` implies' }),
  AzureWebJobsStorage__clientId: setting({ group: 'queues', schema: optionalString(), unset: '`AZURE_CLIENT_ID`', doc: 'the client id of the user-assigned identity the queues are reached with' }),
  AZURE_CLIENT_ID: setting({ group: 'queues', schema: optionalString(), unset: 'the system-assigned identity', doc: 'the client id of the app\'s user-assigned managed identity: queues, Azure Communication Services, the cost and ingress checks' }),

  APPLICATIONINSIGHTS_CONNECTION_STRING: setting({ group: 'telemetry', schema: optionalString(), unset: 'telemetry goes to the log only', doc: 'telemetry backend (its `InstrumentationKey` must be a GUID)' }),
  // The OTLP base URL; it may hold credentials, so never echoed.
  OTEL_EXPORTER_OTLP_ENDPOINT: setting({
    group: 'telemetry',
    schema: z.optional(
      z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' }).check(
        z.refine((value) => !/[?#]/.test(value), { message: 'must have no query or fragment (the signal paths are appended to it)' }),
      ),
    ),
    doc: 'OpenTelemetry telemetry backend: base http(s) URL of an OTLP/HTTP receiver (`/v1/logs`, `/v1/metrics`, `/v1/traces` below it); wins over `APPLICATIONINSIGHTS_CONNECTION_STRING`',
  }),
  OTEL_SERVICE_NAME: setting({ group: 'telemetry', schema: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(128))), unset: '`SERVICE_NAME`', doc: '`service.name` of what the OTLP backend sends' }),

  FANOUT_BATCH_SIZE: setting({ group: 'notifications', schema: wholeNumber(1, 5000), default: '500', doc: 'recipients per fan-out batch message, so scaled-out instances share a large audience' }),
  SMS_MONTHLY_CAP_USD: setting({ group: 'notifications', schema: amount(), default: '30', doc: 'SMS spend guard: the month\'s spend after which no SMS is sent' }),
  SMS_UNIT_COST_USD: setting({ group: 'notifications', schema: amount(), default: '0.0075', doc: 'the cost of one SMS segment, which the spend guard counts' }),
  EXPO_PUSH_URL: setting({ group: 'notifications', schema: absoluteUrl(), default: 'https://exp.host/--/api/v2/push', doc: 'base URL of the Expo push service (`/send`, `/getReceipts` below it)' }),
  EXPO_ACCESS_TOKEN: setting({ group: 'notifications', schema: optionalString(), doc: 'Expo push access token (from the secret store, optional)' }),
  ACS_ENDPOINT: setting({ group: 'notifications', schema: z.optional(absoluteUrl()), unset: 'required in production (https://), or `ACS_CONNECTION_STRING`; set by `infra/`', doc: 'Azure Communication Services endpoint (`https://….communication.azure.com`), reached with the managed identity (`AZURE_CLIENT_ID`)' }),
  ACS_CONNECTION_STRING: setting({ group: 'notifications', schema: optionalString(), unset: 'the development outbox', doc: 'ACS by access key (`endpoint=…;accesskey=…`): local development and the fakes of the tests; `ACS_ENDPOINT` wins when both are set' }),
  ACS_SMS_FROM: setting({ group: 'notifications', schema: optionalString(), requiredInProduction: 'the sending phone number', doc: 'the sending phone number' }),
  ACS_EMAIL_SENDER: setting({ group: 'notifications', schema: optionalString(), requiredInProduction: 'the sending e-mail address', doc: 'the sending e-mail address' }),

  QUEUE_DEPTH_SCHEDULE: schedule('timers', '0 */5 * * * *', 'NCRONTAB of the approval-queue depth sample (every 5 minutes)'),
  SESSION_SWEEP_SCHEDULE: schedule('timers', '0 17 * * * *', 'NCRONTAB of the hourly sweep: sessions that expired unseen, throttle rows that can no longer matter'),
  PUSH_RECEIPTS_SCHEDULE: schedule('timers', '0 */15 * * * *', 'NCRONTAB of the check of Expo push receipts (stale device tokens show up there)'),
  DELIVERY_SETTLE_SCHEDULE: schedule('timers', '0 7-59/15 * * * *', 'NCRONTAB of the settling of SMS and e-mail deliveries whose report never came (every 15 minutes, at 7, 22, 37, 52)'),
  // Every 30 seconds: a crashed fan-out batch resumes within 90 seconds (one ledger lease, then this).
  FANOUT_RECOVERY_SCHEDULE: schedule('timers', '*/30 * * * * *', 'NCRONTAB of the recovery of fan-out batches whose holder died (every 30 seconds)'),
  COST_CHECK_SCHEDULE: schedule('timers', '0 30 6 * * *', 'NCRONTAB of the daily cost check (after Cost Management has the day before)'),
  INGRESS_METRICS_SCHEDULE: schedule('timers', '0 */1 * * * *', 'NCRONTAB of the ingress request count (every minute: the error-rate alert reads the latest)'),

  // The ARM scope whose cost the daily check reads (the deployment's resource group); empty: no check.
  COST_SCOPE: setting({
    group: 'checks',
    schema: optionalMatching(/^\/subscriptions\/[0-9a-fA-F-]{36}(\/resourceGroups\/[-\w.()]{1,90})?$/, 'must be /subscriptions/<id> or /subscriptions/<id>/resourceGroups/<name>'),
    unset: 'no check (one warn line a day)',
    doc: 'the daily cost check (`cost-check-timer`): the ARM scope whose actual cost it reads with the app\'s identity (`/subscriptions/<id>/resourceGroups/<name>`); it sends the `cost.daily` event the cost alerts read (`infra/README.md`, "Alerts")',
  }),
  COST_EXPECTED_MONTHLY_USD: setting({ group: 'checks', schema: amount(), default: '150', doc: 'the expected monthly cost (the budget\'s amount) the daily cost check compares each day with' }),
  // The container app whose ingress answers the API error-rate alert counts; empty: no count.
  INGRESS_METRICS_RESOURCE_ID: setting({
    group: 'checks',
    schema: optionalMatching(
      /^\/subscriptions\/[0-9a-fA-F-]{36}\/resourceGroups\/[-\w.()]{1,90}\/providers\/Microsoft\.App\/containerApps\/[-a-zA-Z0-9]{2,32}$/,
      'must be /subscriptions/<id>/resourceGroups/<name>/providers/Microsoft.App/containerApps/<name>',
    ),
    unset: 'no count (one debug line a run)',
    doc: 'the ingress request count (`ingress-requests-timer`) for the API error-rate alert: the ARM id of the app\'s own container app (`infra/` sets it); it reads the ingress\'s `Requests` metric by status code category with the app\'s identity (*Monitoring Reader* on the container app) for the 5 whole minutes that end 2 minutes ago and sends the `ingress.requests` event (`requests`, `serverErrors` and the window; no path, user or address)',
  }),
  INGRESS_METRICS_ENDPOINT: setting({ group: 'checks', schema: z.optional(z.url({ protocol: /^https$/, message: 'must be an https:// URL' })), unset: 'no count', doc: 'the regional metrics endpoint of that app\'s region, `https://<region>.metrics.monitor.azure.com`' }),

  // The platform's SIGTERM-to-SIGKILL grace (Container Apps allows up to 600 s; 30 s is its default and Kubernetes').
  SHUTDOWN_GRACE_SECONDS: setting({ group: 'shutdown', schema: wholeNumber(3, 600), default: '30', doc: 'seconds between the platform\'s SIGTERM and its SIGKILL (3 to 600; `infra/` sets the container app\'s `terminationGracePeriodSeconds` to the same value): provider calls still in flight are cut off at two thirds of it (at most 10 s before its end) and the process exits before it ends (see docs/operations.md, "Shutdown"); the default is Container Apps\' (and Kubernetes\')' }),
};

export type SettingName = keyof typeof SETTINGS;
type Schemas = { [K in SettingName]: (typeof SETTINGS)[K]['schema'] };

/** The schema of the whole environment, one field per declared setting. */
export const settingsSchema = z.object(
  Object.fromEntries(Object.entries(SETTINGS).map(([name, declaration]) => [name, declaration.schema])) as Schemas,
);

/** The settings as parsed. */
export type ParsedSettings = z.output<typeof settingsSchema>;

/**
 * A setting's declared default, parsed: for modules that have a fallback of their own (a test's
 * hasher, the bench's report) and must agree with the deployed default.
 */
export function declaredDefault<K extends SettingName>(name: K): ParsedSettings[K] {
  const declaration: SettingDeclaration = SETTINGS[name];
  return z.parse(declaration.schema, declaration.default ?? declaration.developmentDefault) as ParsedSettings[K];
}

/**
 * The settings the schema reads, blank values (as app settings and `local.settings.json` leave
 * them) as unset, and unset ones as their declared default (outside production, the development
 * default too): one pass here rather than a `z.preprocess` around every field.
 */
export function presentSettings(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const production = env.APP_ENV?.trim() === 'production';
  const present: Record<string, string> = {};
  for (const [name, declaration] of Object.entries(SETTINGS) as [SettingName, SettingDeclaration][]) {
    const value = env[name];
    const fallback = declaration.default ?? (production ? undefined : declaration.developmentDefault);
    if (value !== undefined && value.trim() !== '') present[name] = value;
    else if (fallback !== undefined) present[name] = fallback;
  }
  return present;
}

/** Production's start-up problems of unset settings it requires, in declaration order. */
export function missingInProduction(present: Readonly<Record<string, string>>): string[] {
  return (Object.entries(SETTINGS) as [SettingName, SettingDeclaration][])
    .filter(([name, declaration]) => declaration.requiredInProduction !== undefined && present[name] === undefined)
    .map(([name, declaration]) => `${name}: required in production (${declaration.requiredInProduction})`);
}
