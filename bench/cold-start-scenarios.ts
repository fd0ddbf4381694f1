import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { entryPointFiles } from '../devhost/load-app';
import { PROJECT_ROOT } from './bench-host';
import type { ColdStartScenario } from './cold-start/measure';
import { writeBareApp } from './cold-start/measure';
import { GOALS } from './goals';

/**
 * What production requires at start-up (`loadConfig`'s production checks), as placeholders:
 * nothing is connected while the app loads, so none of them is reached.
 */
export const PRODUCTION_SETTINGS: Readonly<Record<string, string>> = {
  APP_ENV: 'production',
  IDP_ISSUER: 'https://idp.bench.example/',
  IDP_AUDIENCE: 'api://community-platform-bench',
  IDP_JWKS_URI: 'https://idp.bench.example/.well-known/jwks.json',
  SQL_CONNECTION_STRING: 'Server=tcp:127.0.0.1,9;Database=bench;Authentication=Active Directory Default;Encrypt=true',
  CHILD_SECRET_PEPPER: 'bench-only-pepper-not-a-secret-0123456789',
  AzureWebJobsStorage__accountName: 'benchstorage',
  ACS_ENDPOINT: 'https://bench.communication.azure.com/',
  ACS_SMS_FROM: '+15550100000',
  ACS_EMAIL_SENDER: 'DoNotReply@bench.example',
  CONSENT_TERMS_VERSION: 'bench',
};

/** A well-formed connection string whose ingestion endpoint refuses at once (nothing listens on port 9). */
const APP_INSIGHTS = 'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:9/';
const OTLP = 'http://127.0.0.1:9';

/** A scenario with the goal its median ratio to the bare app is judged against (none: informational). */
export interface ColdStartCase {
  scenario: ColdStartScenario;
  /** The most the median ratio to the bare app may be; undefined for the baseline and the informational rows. */
  goal?: number;
  /** Why the row is there, for the report. */
  about: string;
}

/**
 * When a telemetry backend loaded after registration is ready (informational, issue goal 1): the
 * bare app as the baseline, then the app with Application Insights and with OTLP, each process kept
 * alive until its `telemetry ready` line. Measured apart from `coldStartCases`: such a process is
 * killed once it is ready, so Node never writes its compile cache (every run compiles, as with an
 * empty cache), and it may still be exiting when the next start begins.
 */
export function telemetryReadyScenarios(tmpDir: string): ColdStartScenario[] {
  const bare = writeBareApp(tmpDir);
  const [appEntry] = entryPointFiles(PROJECT_ROOT);
  if (!appEntry) throw new Error('package.json `main` names no file');
  const app = (label: string, env: Record<string, string>): ColdStartScenario => ({
    label,
    appRoot: PROJECT_ROOT,
    entries: [appEntry],
    env: { ...PRODUCTION_SETTINGS, ...env },
    compileCache: 'empty',
    waitForTelemetry: true,
  });
  return [
    { label: 'Bare app', appRoot: bare.appRoot, entries: [bare.entry], env: {}, compileCache: 'empty' },
    app('The app, Application Insights configured, until it is ready', { APPLICATIONINSIGHTS_CONNECTION_STRING: APP_INSIGHTS }),
    app('The app, OTLP configured, until it is ready', { OTEL_EXPORTER_OTLP_ENDPOINT: OTLP }),
  ];
}

/**
 * The tsc output as the Functions worker loaded it before the bundle (package.json `main` was
 * `dist/functions/*.js`): one entry file registering the app as the bundle's entry does, from the
 * separate modules under `dist/`.
 */
function writeUnbundledEntry(tmpDir: string): string {
  const entry = path.join(tmpDir, 'unbundled-entry.js');
  const dist = path.join(PROJECT_ROOT, 'dist');
  writeFileSync(
    entry,
    `const { APP_FUNCTIONS } = require(${JSON.stringify(path.join(dist, 'functions', 'index.js'))});\n` +
      `require(${JSON.stringify(path.join(dist, 'shared', 'composition', 'app-functions.js'))}).registerApp(APP_FUNCTIONS);\n`,
  );
  return entry;
}

/**
 * The cold-start scenarios, the baseline first (issue goal 1): the bare app; the app as deployed
 * (package.json `main`, the bundle) with production settings and no telemetry, then with
 * Application Insights, then with OTLP, all with a warm compile cache; the app's first start in a
 * new container (empty compile cache); and the unbundled tsc output, to show what the bundle bought.
 * Every scenario but the empty-cache one gets a warm compile cache of its own, the bare app
 * included: each is compared with the bare app on the same terms.
 */
export function coldStartCases(tmpDir: string): ColdStartCase[] {
  const bare = writeBareApp(tmpDir);
  const [appEntry, ...more] = entryPointFiles(PROJECT_ROOT);
  if (!appEntry || more.length > 0) throw new Error('package.json `main` must name one file (the bundle\'s entry)');
  const app = (label: string, env: Record<string, string>, compileCache: 'warm' | 'empty'): ColdStartScenario => ({
    label,
    appRoot: PROJECT_ROOT,
    entries: [appEntry],
    env: { ...PRODUCTION_SETTINGS, ...env },
    compileCache,
    invoke: 'health',
  });
  const main = path.relative(PROJECT_ROOT, appEntry);
  return [
    {
      scenario: {
        label: 'Bare app (one `app.http`, the quick start\'s)',
        appRoot: bare.appRoot,
        entries: [bare.entry],
        env: {},
        compileCache: 'warm',
        invoke: 'hello',
      },
      about: 'the baseline',
    },
    {
      scenario: app(`The app (\`${main}\`, bundle), no telemetry`, {}, 'warm'),
      goal: GOALS.coldStartNoTelemetry,
      about: 'production settings, no telemetry backend',
    },
    {
      scenario: app('The app, Application Insights configured', { APPLICATIONINSIGHTS_CONNECTION_STRING: APP_INSIGHTS }, 'warm'),
      goal: GOALS.coldStartTelemetry,
      about: '`APPLICATIONINSIGHTS_CONNECTION_STRING` set (its endpoint refuses: nothing is sent at start)',
    },
    {
      scenario: app('The app, OTLP configured', { OTEL_EXPORTER_OTLP_ENDPOINT: OTLP }, 'warm'),
      goal: GOALS.coldStartTelemetry,
      about: '`OTEL_EXPORTER_OTLP_ENDPOINT` set',
    },
    {
      scenario: app('The app, no telemetry, empty compile cache', {}, 'empty'),
      about: "a new container's first start: every run compiles everything",
    },
    {
      scenario: {
        label: 'For comparison: the unbundled tsc output (`dist/functions/*.js`), no telemetry',
        appRoot: PROJECT_ROOT,
        entries: [writeUnbundledEntry(tmpDir)],
        env: { ...PRODUCTION_SETTINGS },
        compileCache: 'warm',
      },
      about: 'what the bundle bought: the same app as separate modules',
    },
  ];
}
