import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { InvocationContext } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { backgroundHandler } from '../../shared/background/background-handler';
import { createLogger } from '../../shared/logging/logger';
import { FanoutError } from '../../shared/notifications/engine/fanout-error';
import { createInMemoryTelemetry } from '../../shared/telemetry/in-memory';
import { alertLineFilter } from '../helpers/alert-line-match';
import { LogSink } from '../helpers/log-sink';
import { loadAlerts, ROOT } from './alert-catalogue';

/**
 * The poison alert, beyond the spec's tables (a poisoned message was silent without it): declared like the other alerts outside
 * them (no `implements` row, so the spec-table checks pass over it), routed as a warning, with its
 * runbook, and its filter matching the line the app writes when a queue message is poisoned, and
 * no other line of a failing message (the end-to-end test checks the same on the host's stdout).
 */
const NAME = 'notification-poison-messages';
const alert = loadAlerts().find((entry) => entry.name === NAME);

/** The lines the fan-out function's wrapper writes for a failed try with this dequeue count. */
async function linesOfFailedTry(dequeueCount: number): Promise<Record<string, unknown>[]> {
  const sink = new LogSink();
  const logger = createLogger({ service: 'notifications', level: 'info', destination: sink });
  const handler = backgroundHandler<unknown>('notification-fanout', { logger, telemetry: createInMemoryTelemetry() }, async () => {
    throw new FanoutError('delivery_incomplete', 'Some deliveries of the batch are still owed.');
  }, { service: 'notifications' });
  const context = new InvocationContext({ invocationId: `try-${dequeueCount}`, functionName: 'notification-fanout', triggerMetadata: { dequeueCount } });
  await expect(handler({}, context)).rejects.toThrow('delivery_incomplete');
  return sink.lines;
}

describe('the notification-poison-messages alert', () => {
  it('is a warning log alert to the digest, counting any poison line in the last hour, every 15 minutes', () => {
    expect(alert).toMatchObject({
      tier: 'warning',
      severity: 2,
      actionGroup: 'digest',
      kind: 'log',
      implements: [],
      window: 'PT1H',
      frequency: 'PT15M',
      operator: 'GreaterThan',
      threshold: 0,
      timeAggregation: 'Count',
      runbook: 'docs/runbooks/notification-poison.md',
    });
  });

  it('has a runbook that says what fired, how to look, how to re-drive and when not to', () => {
    const file = path.join(ROOT, alert?.runbook ?? 'missing');
    expect(existsSync(file)).toBe(true);
    const text = readFileSync(file, 'utf8');
    for (const part of ['## What fired', '## Investigate', '## First steps', 'When not to re-drive', '```kusto', NAME, 'npm run -s redrive-poison -- --dry-run']) {
      expect(text, part).toContain(part);
    }
    expect(readFileSync(path.join(ROOT, 'docs/runbooks/README.md'), 'utf8')).toContain('notification-poison.md');
  });

  it('matches the line written on the last try, and none of the lines of an earlier try', async () => {
    const filter = alertLineFilter(NAME);
    expect(filter.conditions.map((condition) => condition.column).sort()).toEqual(['errorCode', 'message', 'service']);
    const last = await linesOfFailedTry(5);
    expect(last.filter((line) => filter.matches(line))).toEqual([
      expect.objectContaining({ level: 'error', message: 'message moved to the poison queue', errorCode: 'poison_message', dequeueCount: 5 }),
    ]);
    expect((await linesOfFailedTry(4)).filter((line) => filter.matches(line))).toEqual([]);
    // The check can fail: the same line from another service is not counted.
    expect(filter.matches({ ...last.find((line) => filter.matches(line)), service: 'api' })).toBe(false);
  });
});
