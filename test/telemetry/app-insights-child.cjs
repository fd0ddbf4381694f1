// @ts-check
'use strict';
/**
 * Runs the compiled telemetry facade with a real Application Insights backend, in its own process
 * so that `NODE_EXTRA_CA_CERTS` (read only at start) makes it trust the test's ingestion capture.
 * Started by app-insights.test.ts with one JSON argument; prints one JSON line `{ "childDone": ... }`.
 *
 * Mode `deliver` tracks one item of each kind against the capture (one of them before the backend
 * has loaded); mode `unreachable` points at an
 * endpoint that never answers and measures how long `flush()` takes to give up.
 */
const path = require('node:path');

const dist = path.resolve(__dirname, '../../dist/shared');
const { createTelemetry } = require(path.join(dist, 'telemetry/index.js'));
const { createLogger } = require(path.join(dist, 'logging/logger.js'));
const { runWithLogContext } = require(path.join(dist, 'logging/log-context.js'));

/**
 * @typedef {{ mode: 'deliver', connectionString: string, traceId: string, canaryJwt: string, canaryEmail: string }} DeliverInput
 * @typedef {{ mode: 'unreachable', connectionString: string, flushTimeoutMs: number }} UnreachableInput
 */

async function main() {
  /** @type {DeliverInput | UnreachableInput} */
  const input = JSON.parse(process.argv[2] ?? '{}');
  const logger = createLogger({ service: 'telemetry-child', level: 'debug' });
  if (input.mode === 'unreachable') {
    await flushAgainstUnreachableEndpoint(input, logger);
    return;
  }
  if (input.mode === 'stop') {
    await stopAgainstUnreachableEndpoint(input);
    return;
  }
  // The SDK loads in a worker thread; the first flush below also waits for it to load, which can take
  // seconds on a loaded machine, so its limit is wider than a shutdown's.
  const telemetry = createTelemetry({ connectionString: input.connectionString, logger, serviceName: 'telemetry-child', flushTimeoutMs: 15_000 });

  // Tracked before the backend has loaded (the facade loads it on the next turn of the event loop):
  // kept, then replayed in its own chain's context. A chain that names its service (the fan-out's
  // queue function): its items carry that service.
  runWithLogContext({ traceId: input.traceId, userId: null, service: 'notifications' }, () => {
    telemetry.trackEvent('telemetry.fanout-test', { channel: 'sms' });
  });
  // Waits for the backend to be ready (and sends what was kept).
  await telemetry.flush();

  // Traffic that auto-instrumentation would turn into request and dependency telemetry; `http` is
  // loaded only now, after the backend started, so that an instrumentation would have patched it.
  const http = require('node:http');
  const server = http.createServer((_request, response) => response.end('ok'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  await new Promise((resolve, reject) => {
    http.get(`http://127.0.0.1:${address.port}/api/v1/ping`, (response) => {
      response.resume();
      response.on('end', () => resolve(undefined));
    }).on('error', reject);
  });
  // Output that console or logger capture would turn into trace telemetry.
  console.log('console output that must not become telemetry');
  logger.info({ step: 'before-tracking' }, 'a pino line that must not become telemetry');

  runWithLogContext({ traceId: input.traceId, userId: null }, () => {
    telemetry.trackEvent('telemetry.capture-test', {
      channel: 'push',
      result: 'delivered',
      attempt: 2,
      leaked: `Bearer ${input.canaryJwt}`,
      skipped: undefined,
    });
    telemetry.trackDependency({
      name: 'GET jwks',
      dependencyType: 'HTTP',
      target: 'login.example.test',
      durationMs: 12,
      success: true,
      resultCode: 200,
    });
    telemetry.trackException(new Error(`lookup failed for ${input.canaryEmail}`), { step: 'capture-test' });
    telemetry.trackMetric('capture.queue-depth', 7, { queue: 'approvals' });
  });

  const started = Date.now();
  await telemetry.flush();
  const flushMs = Date.now() - started;
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  process.stdout.write(`${JSON.stringify({ childDone: true, flushMs, globals: globalTelemetryState(http), sdkModulesOnMainThread: sdkModulesOnMainThread() })}\n`);
}

/**
 * What the backend changed in the process: OpenTelemetry API registrations (tracer, meter, logger
 * providers, context manager) and functions wrapped by an instrumentation (shimmer marks them).
 * @param {typeof import('node:http')} http
 */
function globalTelemetryState(http) {
  /** @type {Record<string, unknown> | undefined} */
  const otelApi = /** @type {any} */ (globalThis)[Symbol.for('opentelemetry.js.api.1')];
  /** @param {unknown} fn */
  const wrapped = (fn) => /** @type {{ __wrapped?: boolean }} */ (fn).__wrapped === true;
  return {
    otelRegistrations: Object.keys(otelApi ?? {}).filter((key) => key !== 'version'),
    httpPatched: [http.request, http.get, http.Server.prototype.emit].some(wrapped),
    consolePatched: [console.log, console.info, console.error].some(wrapped),
    uncaughtExceptionListeners: process.listenerCount('uncaughtException'),
  };
}

/** Modules of the telemetry SDK this (main) thread loaded: the SDK belongs to the worker thread. */
function sdkModulesOnMainThread() {
  return Object.keys(require.cache).filter((file) => /node_modules[\\/](applicationinsights|@opentelemetry|@azure[\\/]monitor)/.test(file)).length;
}

/**
 * The app's stop against an ingestion endpoint that never answers, through the facade (its SDK in
 * a worker thread) with its default flush limit: once the backend is ready, one event is tracked
 * and flushed; the child then does not exit itself, and says when the process actually exited.
 * @param {{ mode: 'stop', connectionString: string }} input
 */
async function stopAgainstUnreachableEndpoint(input) {
  /** @type {(value?: unknown) => void} */
  let onReady = () => undefined;
  const ready = new Promise((resolve) => (onReady = resolve));
  const logger = createLogger({
    service: 'telemetry-child',
    level: 'debug',
    destination: {
      write(/** @type {string} */ line) {
        process.stdout.write(line);
        if (line.includes('"telemetry ready"')) onReady();
      },
    },
  });
  // The telemetry worker never holds the process open (the Functions worker's own connection does in
  // the app): this timer stands in for it until the flush has been asked for.
  const host = setInterval(() => undefined, 1_000);
  const telemetry = createTelemetry({ connectionString: input.connectionString, logger, serviceName: 'telemetry-child' });
  await ready;
  telemetry.trackEvent('telemetry.unreachable-test', { channel: 'push' });
  telemetry.trackEvent('telemetry.unreachable-test', { channel: 'sms' });
  const started = Date.now();
  const flushed = telemetry.flush();
  clearInterval(host);
  await flushed;
  const flushMs = Date.now() - started;
  process.stdout.write(`${JSON.stringify({ childDone: true, flushMs })}\n`);
  process.on('exit', () => process.stdout.write(`${JSON.stringify({ exitedAfterFlushStartMs: Date.now() - started })}\n`));
}

/**
 * @param {UnreachableInput} input
 * @param {ReturnType<typeof createLogger>} logger
 */
async function flushAgainstUnreachableEndpoint(input, logger) {
  // Required here: the other modes check that their main thread never loads the SDK.
  const { createAppInsightsTelemetry } = require(path.join(dist, 'telemetry/app-insights.js'));
  const telemetry = createAppInsightsTelemetry({
    connectionString: input.connectionString,
    serviceName: 'telemetry-child',
    logger,
    flushTimeoutMs: input.flushTimeoutMs,
  });
  telemetry.trackEvent('telemetry.unreachable-test', { channel: 'push' });
  const started = Date.now();
  await telemetry.flush();
  const flushMs = Date.now() - started;
  process.stdout.write(`${JSON.stringify({ childDone: true, flushMs })}\n`);
  // The export still hangs on its socket; a Functions worker lives on, this child need not wait.
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
