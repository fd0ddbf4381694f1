import type { DestinationStream } from 'pino';
import { createAdultSignInThrottle, type AdultSignInThrottle } from './throttles/adult-sign-in-throttle';
import type { AuthDeps, ChildAuthDeps } from './auth/auth-deps';
import { authenticateSession } from './auth/authenticate-session';
import { createSecretHasher, type SecretHasher } from './ports/secret-hasher';
import { SIGN_IN_THROTTLE_POLICY } from './throttles/sign-in-throttle';
import { warnOnceWithoutAddress } from './throttles/unknown-client-address';
import { createIdTokenVerifier, logProviderFailure, type IdTokenVerifier } from './auth/id-token';
import type { ChildManagementDeps } from './family/create-child';
import { loadConfig, loadProcessConfig, type Config } from './config';
import { lazyDatabase, type DatabaseProvider } from './db/lazy-database';
import { exitOnConfigError } from './lifecycle/config-failure';
import { createShutdown, type Shutdown } from './lifecycle/shutdown';
import { openDatabase } from './db/open-database';
import { databaseProbe, queueProbe } from './health/readiness-probes';
import type { ReadinessProbe } from './health/check-readiness';
import { createHttpPipeline, type HttpPipeline } from './http/http-pipeline';
import { errorLineExceptions, type ErrorLineListener } from './telemetry/error-line-exceptions';
import { createLogger, type Logger } from './logging/logger';
import { systemClock, type Clock } from './ports/clock';
import { cryptoRandom, type Random } from './ports/random';
import { DEFAULT_SESSION_POLICY, type SessionPolicy } from './sessions/session-policy';
import { storageFanoutQueue, unconfiguredFanoutQueue, type FanoutQueue } from './messages/fanout-queue';
import { storageNoticeQueue, unconfiguredNoticeQueue, type NoticeQueue } from './messages/notice-queue';
import { recordingFanoutQueue, recordingNoticeQueue } from './notifications';
import { createTelemetry, type Telemetry } from './telemetry';

/** Everything with a side effect, built once per process and passed to the code that needs it. */
export interface AppServices {
  config: Config;
  logger: Logger;
  telemetry: Telemetry;
  clock: Clock;
  random: Random;
  database: DatabaseProvider;
  readinessProbes: readonly ReadinessProbe[];
  /** The HTTP pipeline every endpoint's handler runs in (authentication, body, problem answers, the request line). */
  httpPipeline: HttpPipeline;
  sessionPolicy: SessionPolicy;
  /** Verifies identity-provider ID tokens; holds the JWKS cache, so there is one per process. */
  idTokenVerifier: IdTokenVerifier;
  /** The limits of failed adult sign-ins (counted in the database; one warn line when client addresses are unknown). */
  adultSignInThrottle: AdultSignInThrottle;
  /**
   * The core ports most use cases take (database, clock, random, telemetry, logger, session
   * policy): the authentication use cases and the sessions', users', announcements' and data
   * rights' alike.
   */
  corePorts: AuthDeps;
  /**
   * What the child accounts' use cases take (the child sign-in, creating and changing a child):
   * the core ports plus Argon2id for child PINs and passwords (pepper, bounded concurrency), the
   * notice queue, and the terms version a parent's consents are recorded under.
   */
  childAccountPorts: ChildAuthDeps & ChildManagementDeps;
  /** Where publishing enqueues notification fan-out work (`notification-fanout`). */
  fanoutQueue: FanoutQueue;
  /** Where account notices (a child's account locked) are enqueued: the same `notification-fanout` queue. */
  noticeQueue: NoticeQueue;
  /** Termination of this process: begun by the lifecycle hooks, read by the fan-out's provider calls. */
  shutdown: Shutdown;
  /** For other loggers of the process (the fan-out's): their error lines become telemetry exceptions too. */
  onErrorLine: ErrorLineListener;
}

export interface BuildOptions {
  /** Already parsed settings (the process's, `appConfig()`); default: parsed from `env`. */
  config?: Config;
  /** Tests capture log lines here; the app writes to stdout. */
  logDestination?: DestinationStream;
  telemetry?: Telemetry;
  clock?: Clock;
  random?: Random;
  sessionPolicy?: SessionPolicy;
  childSecretHasher?: SecretHasher;
  fanoutQueue?: FanoutQueue;
  noticeQueue?: NoticeQueue;
  shutdown?: Shutdown;
}

/**
 * Builds the services from the environment. Bad configuration throws `ConfigError` here, at
 * start-up, with the names of the settings to fix.
 */
export function buildAppServices(env: Readonly<Record<string, string | undefined>>, options: BuildOptions = {}): AppServices {
  const config = options.config ?? loadConfig(env);
  const errorLines = errorLineExceptions();
  const logger = createLogger({
    service: config.serviceName,
    level: config.logLevel,
    pretty: config.logPretty,
    onErrorLine: errorLines.onErrorLine,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  const telemetry = errorLines.attach(
    options.telemetry ??
      createTelemetry({
        connectionString: config.appInsightsConnectionString,
        otlp: config.otlp,
        logger,
        serviceName: config.serviceName,
      }),
  );
  // Production schemas change only through `npm run migrate`, a deliberate step of the release.
  const migrateOnOpen = config.migrateOnOpen;
  const database = lazyDatabase(async () => {
    const db = await openDatabase(config.database, { logger });
    if (migrateOnOpen) {
      try {
        // Loaded here: the migrator (umzug and every migration's SQL) is a large share of a cold
        // start, and production never migrates on open.
        const { migrateDatabase } = await import('./db/migrate.js');
        await migrateDatabase(db, { logger });
      } catch (error) {
        await db.close().catch(() => undefined);
        throw error;
      }
    }
    return db;
  });
  const readinessProbes = [
    databaseProbe(database),
    ...(config.queueStorage ? [queueProbe(config.queueStorage)] : []),
  ];
  const clock = options.clock ?? systemClock;
  const random = options.random ?? cryptoRandom;
  const sessionPolicy = options.sessionPolicy ?? DEFAULT_SESSION_POLICY;
  const corePorts: AuthDeps = { database, clock, random, telemetry, logger, sessionPolicy };
  // Every message of the fan-out queue is recorded in the database before it is sent, so work a dead
  // host took is re-driven from there (`notifications/engine/message-leasing.ts`).
  const noticeQueue = recordingNoticeQueue(
    options.noticeQueue ?? (config.queueStorage ? storageNoticeQueue(config.queueStorage) : unconfiguredNoticeQueue()),
    { database, clock },
  );
  const shutdown = options.shutdown ?? createShutdown({ graceMs: config.shutdownGraceSeconds * 1000 });
  return {
    config,
    logger,
    telemetry,
    onErrorLine: errorLines.onErrorLine,
    clock,
    random,
    database,
    readinessProbes,
    httpPipeline: createHttpPipeline({
      logger,
      telemetry,
      authenticate: (authorization) => authenticateSession(authorization, corePorts),
      corsAllowedOrigins: config.corsAllowedOrigins,
      shutdown,
    }),
    sessionPolicy,
    idTokenVerifier: createIdTokenVerifier({
      idp: config.idp,
      clock,
      emailVerification: config.idpEmail,
      onProviderFailure: logProviderFailure(logger, telemetry),
    }),
    adultSignInThrottle: createAdultSignInThrottle({
      pepper: config.hashingSecret,
      limits: config.adultSignInLimits,
      logger,
      trustProxyHops: config.trustProxyHops,
    }),
    corePorts,
    childAccountPorts: {
      ...corePorts,
      hasher:
        options.childSecretHasher ??
        createSecretHasher({ pepper: config.hashingSecret, threadPoolSize: config.threadPoolSize, ...config.hashQueue }),
      pepper: config.hashingSecret,
      noticeQueue,
      shutdown,
      consentTermsVersion: config.consentTermsVersion,
      onUnknownClientAddress: warnOnceWithoutAddress({
        logger,
        trustProxyHops: config.trustProxyHops,
        message: 'child sign-ins without a client address share one address limit',
        maxFailures: SIGN_IN_THROTTLE_POLICY.addressMaxFailures,
      }),
    },
    noticeQueue,
    fanoutQueue: recordingFanoutQueue(
      options.fanoutQueue ?? (config.queueStorage ? storageFanoutQueue(config.queueStorage) : unconfiguredFanoutQueue()),
      { database, clock },
    ),
    shutdown,
  };
}

let processConfig: Config | undefined;
let services: AppServices | undefined;

/**
 * The process's settings, parsed from its environment on first use (`loadProcessConfig`). `registerApp` reads them before
 * it registers anything (the timers' schedules come from them), so a configuration error stops the
 * app before it serves anything: it is logged as one `config_invalid` line and the process exits 1,
 * under the Functions worker too, which would otherwise swallow the error and run the app with no
 * functions (`exitOnConfigError`).
 */
export function appConfig(): Config {
  if (!processConfig) {
    try {
      processConfig = loadProcessConfig();
    } catch (error) {
      exitOnConfigError(error);
    }
  }
  return processConfig;
}

/**
 * The process's services, built on first use from `appConfig()`. Not while the app registers, nor
 * in the `appStart` hook: the Functions worker answers the host only once registration is done and
 * those hooks have run. The lifecycle's hook (`composition/app-lifecycle.ts`) has them built on the
 * next turn of the event loop, after the answer; a request or message that comes first builds them
 * itself.
 */
export function appServices(): AppServices {
  if (!services) {
    try {
      services = buildAppServices({}, { config: appConfig() });
    } catch (error) {
      exitOnConfigError(error);
    }
  }
  return services;
}
