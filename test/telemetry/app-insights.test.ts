import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTION_MARKER } from '../../shared/logging/scrub';
import { startIngestionCapture, type CapturedEnvelope, type IngestionCapture } from './ingestion-capture';

/**
 * The real Application Insights backend, end to end: a child process runs the compiled facade
 * (`dist/`, built by `npm test` before vitest runs) against a local HTTPS stand-in for the
 * ingestion endpoint, and the test reads the envelopes that arrived.
 */

const ROOT = resolve(__dirname, '../..');
const CHILD = join(__dirname, 'app-insights-child.cjs');
const CHILD_TIMEOUT_MS = 20_000;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CANARY_JWT = 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjYW5hcnktY2hpbGQifQ.Y2FuYXJ5LXNpZ25hdHVyZQ';
const CANARY_EMAIL = 'canary.telemetry@example.org';

interface ChildResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  done: { childDone: boolean; flushMs: number; globals?: Record<string, unknown>; sdkModulesOnMainThread?: number } | undefined;
}

/** The compiled files the child loads must exist and be newer than their sources. */
function assertDistIsFresh(): void {
  const sources = [
    'telemetry/index',
    'telemetry/deferred-telemetry',
    'telemetry/load-backend',
    'telemetry/app-insights',
    'settings/app-insights-connection',
    'telemetry/telemetry-correlation',
    'telemetry/flush-within',
    'telemetry/telemetry-properties',
    'logging/logger',
    'logging/scrub',
  ];
  for (const source of sources) {
    const compiled = join(ROOT, 'dist/shared', `${source}.js`);
    if (!existsSync(compiled)) {
      throw new Error(`${compiled} is missing: run \`npm run build\` first (\`npm test\` does it for you)`);
    }
    if (statSync(compiled).mtimeMs < statSync(join(ROOT, 'shared', `${source}.ts`)).mtimeMs) {
      throw new Error(`${compiled} is older than its source: run \`npm run build\` first (\`npm test\` does it for you)`);
    }
  }
}

function runChild(input: Record<string, unknown>, extraEnv: Record<string, string>): Promise<ChildResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  // Nothing from the developer's shell may redirect or reconfigure the child's telemetry.
  for (const name of Object.keys(env)) {
    if (/^(APPLICATIONINSIGHTS_|APPLICATION_INSIGHTS_|APPINSIGHTS_|OTEL_)/.test(name)) delete env[name];
  }
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CHILD, JSON.stringify(input)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(killer);
      const doneLine = stdout.split('\n').find((line) => line.startsWith('{"childDone"'));
      resolvePromise({ exitCode, stdout, stderr, done: doneLine ? JSON.parse(doneLine) : undefined });
    });
  });
}

function describeChild(result: ChildResult): string {
  return `child exit ${String(result.exitCode)}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

const baseTypeOf = (envelope: CapturedEnvelope): string | undefined => envelope.data?.baseType;

describe('Application Insights backend against a local ingestion endpoint', () => {
  let capture: IngestionCapture;
  let silent: Server;
  const silentSockets = new Set<Socket>();
  let silentConnections = 0;
  let delivered: ChildResult;
  let unreachable: ChildResult;
  let stopped: ChildResult;

  beforeAll(async () => {
    assertDistIsFresh();
    capture = await startIngestionCapture();
    // Accepts TCP connections and never answers: the TLS handshake of an export hangs.
    silent = createServer((socket) => {
      silentConnections += 1;
      silentSockets.add(socket);
      socket.on('close', () => silentSockets.delete(socket));
    });
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const silentUrl = `https://127.0.0.1:${(silent.address() as AddressInfo).port}/`;

    [delivered, unreachable, stopped] = await Promise.all([
      runChild(
        { mode: 'deliver', connectionString: capture.connectionString, traceId: TRACE_ID, canaryJwt: CANARY_JWT, canaryEmail: CANARY_EMAIL },
        { NODE_EXTRA_CA_CERTS: capture.certPath },
      ),
      runChild(
        {
          mode: 'unreachable',
          connectionString: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=${silentUrl}`,
          flushTimeoutMs: 400,
        },
        {},
      ),
      runChild({ mode: 'stop', connectionString: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=${silentUrl}` }, {}),
    ]);
  }, 45_000);

  afterAll(async () => {
    for (const socket of silentSockets) socket.destroy();
    await new Promise<void>((done) => (silent ? silent.close(() => done()) : done()));
    await capture?.close();
  });

  it('runs the child to the end, flushing without waiting for a timer', () => {
    expect(delivered.exitCode, describeChild(delivered)).toBe(0);
    expect(delivered.done, describeChild(delivered)).toBeDefined();
    expect(delivered.done?.flushMs).toBeLessThan(5_000);
  });

  it('loads and runs the SDK in a worker thread: the main thread never loads a module of it', () => {
    expect(delivered.done?.sdkModulesOnMainThread, describeChild(delivered)).toBe(0);
  });

  it('stops within 3 s of the flush whatever the endpoint does, counting what was not flushed in one warn line', () => {
    expect(stopped.exitCode, describeChild(stopped)).toBe(0);
    const lines = stopped.stdout.split('\n').filter((line) => line.startsWith('{'));
    const exited = lines.map((line) => JSON.parse(line) as { exitedAfterFlushStartMs?: number }).find((line) => line.exitedAfterFlushStartMs !== undefined);
    // The flush waits its limit (2 s), then the worker and its hanging export are stopped, and nothing else holds the process.
    expect(exited?.exitedAfterFlushStartMs, describeChild(stopped)).toBeGreaterThanOrEqual(1_900);
    expect(exited?.exitedAfterFlushStartMs, describeChild(stopped)).toBeLessThan(3_000);
    const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.level === 'warn');
    expect(warnings).toEqual([expect.objectContaining({ message: 'telemetry not flushed in time; the rest is dropped', unflushedTelemetryItems: 2 })]);
    expect(stopped.stdout).not.toContain('InstrumentationKey');
  });

  it('registers no global OpenTelemetry provider and patches nothing', () => {
    expect(delivered.done?.globals).toEqual({
      otelRegistrations: [],
      httpPatched: false,
      consolePatched: false,
      uncaughtExceptionListeners: 0,
    });
  });

  it('delivers the custom event with its properties, the service and the trace id', () => {
    const events = capture.envelopes.filter((envelope) => baseTypeOf(envelope) === 'EventData');
    expect(events, JSON.stringify(capture.envelopes)).toHaveLength(2);
    const event = events.find((envelope) => envelope.data?.baseData?.name === 'telemetry.capture-test');
    // The fan-out's chain names its own service, which wins over the process's.
    expect(events.find((envelope) => envelope.data?.baseData?.name === 'telemetry.fanout-test')?.data?.baseData?.properties).toEqual({
      channel: 'sms',
      traceId: TRACE_ID,
      service: 'notifications',
    });
    expect(event?.iKey).toBe('00000000-0000-0000-0000-000000000000');
    expect(event?.data?.baseData?.name).toBe('telemetry.capture-test');
    expect(event?.data?.baseData?.properties).toEqual({
      channel: 'push',
      result: 'delivered',
      attempt: '2',
      leaked: REDACTION_MARKER,
      traceId: TRACE_ID,
      service: 'telemetry-child',
    });
  });

  it('delivers the exception with a scrubbed message', () => {
    const exceptions = capture.envelopes.filter((envelope) => baseTypeOf(envelope) === 'ExceptionData');
    expect(exceptions).toHaveLength(1);
    const details = (exceptions[0]?.data?.baseData?.exceptions as { message: string; typeName: string }[])[0];
    expect(details).toMatchObject({ typeName: 'Error', message: `lookup failed for ${REDACTION_MARKER}` });
    expect(exceptions[0]?.data?.baseData?.properties).toMatchObject({ step: 'capture-test', traceId: TRACE_ID });
  });

  it('delivers the dependency with the trace id as its operation id', () => {
    const dependencies = capture.envelopes.filter((envelope) => baseTypeOf(envelope) === 'RemoteDependencyData');
    // Only ours: the child's own HTTP call to its local server was not auto-collected.
    expect(dependencies.map((envelope) => envelope.data?.baseData?.name)).toEqual(['GET jwks']);
    expect(dependencies[0]?.tags?.['ai.operation.id']).toBe(TRACE_ID);
    expect(dependencies[0]?.data?.baseData).toMatchObject({
      success: true,
      duration: '00:00:00.012',
      properties: { dependencyType: 'HTTP', target: 'login.example.test', resultCode: '200', traceId: TRACE_ID },
    });
  });

  it('delivers the metric without a per-request trace id dimension', () => {
    const metrics = capture.envelopes
      .filter((envelope) => baseTypeOf(envelope) === 'MetricData')
      .filter((envelope) => (envelope.data?.baseData?.metrics as { name: string }[])[0]?.name === 'capture.queue-depth');
    expect(metrics).toHaveLength(1);
    expect((metrics[0]?.data?.baseData?.metrics as { value: number }[])[0]?.value).toBe(7);
    expect(metrics[0]?.data?.baseData?.properties).toEqual({ queue: 'approvals', service: 'telemetry-child' });
  });

  it('sends nothing it was not asked to: no requests, no captured console or pino lines, no live metrics', () => {
    const baseTypes = new Set(capture.envelopes.map(baseTypeOf));
    expect(baseTypes.has('RequestData')).toBe(false);
    expect(baseTypes.has('MessageData')).toBe(false);
    expect(JSON.stringify(capture.envelopes)).not.toContain('must not become telemetry');
    // The pino and console lines did go to stdout, once each.
    expect(delivered.stdout.match(/must not become telemetry/g)).toHaveLength(2);
    expect(capture.requests.length).toBeGreaterThan(0);
    for (const request of capture.requests) {
      expect(request).toEqual({ method: 'POST', path: '/v2.1/track' });
    }
  });

  it('lets no canary reach the ingestion endpoint or the log, and never logs the connection string', () => {
    const everything = `${JSON.stringify(capture.envelopes)}\n${delivered.stdout}\n${delivered.stderr}`;
    expect(everything).not.toContain(CANARY_JWT);
    expect(everything).not.toContain(CANARY_EMAIL);
    expect(delivered.stdout).toContain('"telemetryBackend":"application-insights"');
    expect(delivered.stdout).not.toContain('InstrumentationKey');
    expect(delivered.stdout).not.toContain(capture.url);
  });

  it('does not load applicationinsights or the OpenTelemetry SDK (seconds of start-up) when the facade is loaded or created', async () => {
    // Created with a connection string: the backend loads on a later turn of the event loop, not in the creating call.
    const script = [
      `const { createTelemetry } = require(${JSON.stringify(join(ROOT, 'dist/shared/telemetry/index.js'))});`,
      `const { createLogger } = require(${JSON.stringify(join(ROOT, 'dist/shared/logging/logger.js'))});`,
      `const heavy = () => Object.keys(require.cache).filter((file) => /node_modules\\/(applicationinsights|@opentelemetry)\\//.test(file)).length;`,
      `const afterRequire = heavy();`,
      `createTelemetry({ connectionString: 'InstrumentationKey=00000000-0000-0000-0000-000000000000', logger: createLogger({ service: 'api', level: 'error' }), serviceName: 'api' });`,
      `createTelemetry({ otlp: { endpoint: 'http://127.0.0.1:9' }, logger: createLogger({ service: 'api', level: 'error' }), serviceName: 'api' });`,
      `process.stdout.write(JSON.stringify({ afterRequire, afterCreate: heavy() }));`,
      `process.exit(0);`,
    ].join('\n');
    const output = await new Promise<string>((done, fail) => {
      const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.on('error', fail);
      child.on('close', () => done(stdout));
    });
    expect(JSON.parse(output)).toEqual({ afterRequire: 0, afterCreate: 0 });
  });

  it('resolves flush() at its time limit when the endpoint never answers', () => {
    expect(unreachable.exitCode, describeChild(unreachable)).toBe(0);
    expect(unreachable.done?.flushMs).toBeGreaterThanOrEqual(350);
    expect(unreachable.done?.flushMs).toBeLessThan(3_000);
    // The export really was under way (and hanging) while flush() waited.
    expect(silentConnections).toBeGreaterThan(0);
  });
});
