import { randomUUID } from 'node:crypto';
import { HttpRequest, InvocationContext, type HttpResponseInit } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { createHttpPipeline } from '../http/http-pipeline';
import { createShutdown } from '../lifecycle/shutdown';
import { createLogger } from '../logging/logger';
import type { Telemetry } from '../telemetry/telemetry';
import { answerReadiness } from './answer-readiness';
import type { ReadinessProbe } from './check-readiness';

/** `functions/ready.ts` and `functions/health.ts` as wired by the composition root, around one shutdown. */
function probesSetup(probe: ReadinessProbe) {
  const sink = new LogSink();
  const exceptions: unknown[] = [];
  const telemetry: Telemetry = {
    trackEvent: () => undefined,
    trackMetric: () => undefined,
    trackDependency: () => undefined,
    trackException: (error) => exceptions.push(error),
    flush: async () => undefined,
  };
  const shutdown = createShutdown({ graceMs: 30_000 });
  const endpoint = createHttpPipeline({ logger: createLogger({ service: 'api', level: 'info', destination: sink }), telemetry, shutdown });
  const deps = { probes: [probe], stopping: shutdown.stopping };
  const ready = endpoint({ route: 'ready' }, async ({ log }) => answerReadiness(deps, log));
  const health = endpoint({ route: 'health' }, async () => ({ status: 200, jsonBody: { status: 'ok' } }));
  const get = (handler: typeof ready, route: string): Promise<HttpResponseInit> =>
    Promise.resolve(handler(new HttpRequest({ method: 'GET', url: `http://localhost:7071/api/${route}` }), new InvocationContext({ invocationId: randomUUID(), functionName: route })));
  return {
    sink,
    exceptions,
    shutdown,
    ready: () => get(ready, 'ready'),
    health: () => get(health, 'health'),
  };
}

const jsonOf = (response: HttpResponseInit): Record<string, unknown> => JSON.parse(String(response.body)) as Record<string, unknown>;

describe('answerReadiness', () => {
  it('answers 200 while the dependencies answer, and 503 with Retry-After from the shutdown\'s start, while health stays 200', async () => {
    let probed = 0;
    const f = probesSetup({ dependency: 'database', check: async () => void probed++ });
    const before = await f.ready();
    expect(before.status).toBe(200);
    expect(jsonOf(before)).toEqual({ status: 'ready', checks: { database: 'ok' } });

    f.shutdown.begin('SIGTERM');
    const after = await f.ready();
    expect(after.status).toBe(503);
    expect((after.headers as Record<string, string>)['Retry-After']).toBe('5');
    expect(jsonOf(after)).toMatchObject({ code: 'service_unavailable', detail: expect.stringContaining('shutting down') });
    // The database (about to close) is not probed once stopping.
    expect(probed).toBe(1);
    // Liveness: the platform must not restart a replica that is only draining.
    expect((await f.health()).status).toBe(200);
    // Expected on every deploy: a warning, no error line, no exception.
    expect(f.sink.withMessage('request handled').filter((line) => line.statusCode === 503)).toEqual([
      expect.objectContaining({ level: 'warn', errorCode: 'service_unavailable' }),
    ]);
    expect(f.sink.lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(f.exceptions).toEqual([]);
  });

  it('answers 503 with an error line naming the dependency that does not answer', async () => {
    const f = probesSetup({ dependency: 'database', check: () => Promise.reject(new Error('ECONNREFUSED')) });
    const response = await f.ready();
    expect(response.status).toBe(503);
    expect(jsonOf(response)).toMatchObject({ detail: 'Not ready: database unavailable.' });
    expect(f.sink.withMessage('dependency unavailable')[0]).toMatchObject({ level: 'error', dependency: 'database' });
  });
});
