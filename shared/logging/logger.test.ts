import { afterEach, describe, expect, it, vi } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { runWithLogContext } from './log-context';
import { createLogger, errorFields } from './logger';

function capture(level: 'debug' | 'info' = 'info') {
  const sink = new LogSink();
  return { sink, logger: createLogger({ service: 'api', level, destination: sink }) };
}

describe('createLogger', () => {
  it('writes one schema-valid JSON object per line with the required fields', () => {
    const { sink, logger } = capture();
    logger.info('app started');
    const [line] = sink.lines;
    expect(line).toMatchObject({ level: 'info', service: 'api', message: 'app started', userId: null });
    expect(line?.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(line?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(line).not.toHaveProperty('time');
    expect(line).not.toHaveProperty('msg');
  });

  it("takes the chain's service when it names one, with exactly one service key in the line", async () => {
    const { sink, logger } = capture();
    await runWithLogContext({ traceId: 'b'.repeat(32), userId: null, service: 'notifications' }, async () => {
      logger.info('fan-out line');
    });
    logger.info('api line');
    expect(sink.lines.map((line) => line.service)).toEqual(['notifications', 'api']);
    expect(sink.raw.every((raw) => raw.match(/"service":/g)?.length === 1)).toBe(true);
  });

  it('takes traceId and userId from the log context of the request chain', async () => {
    const { sink, logger } = capture();
    const context = { traceId: 'a'.repeat(32), userId: null as string | null };
    await runWithLogContext(context, async () => {
      logger.info('before');
      await Promise.resolve();
      context.userId = 'user-1';
      logger.child({ requestId: 'r1' }).info('after');
    });
    expect(sink.lines.map((line) => [line.traceId, line.userId])).toEqual([
      ['a'.repeat(32), null],
      ['a'.repeat(32), 'user-1'],
    ]);
    expect(sink.text.match(/"traceId"/g)).toHaveLength(2);
  });

  it('uses the four level words only', () => {
    const { sink, logger } = capture('debug');
    logger.debug('d');
    logger.warn('w');
    logger.error({ errorCode: 'internal_error', stack: 'Error: x' }, 'e');
    logger.fatal({ errorCode: 'internal_error', stack: 'Error: y' }, 'f');
    expect(sink.lines.map((line) => line.level)).toEqual(['debug', 'warn', 'error', 'error']);
  });

  it('redacts secret fields by name and scrubs secrets that slip into other fields', () => {
    const { sink, logger } = capture();
    logger.info(
      {
        pin: '482913',
        password: 'canary-password',
        user: { email: 'canary@example.com', username: 'canary_kid' },
        note: 'forwarded Bearer canaryTOKEN123 from +15550001111',
      },
      'attempt',
    );
    expect(sink.text).not.toMatch(/482913|canary-password|canary@example\.com|canary_kid|canaryTOKEN123|15550001111/);
    expect(sink.lines[0]).toMatchObject({ pin: '[REDACTED]', password: '[REDACTED]' });
  });

  it('redacts secret fields at any depth it walks, in arrays and child bindings, without touching the caller\'s objects', () => {
    const { sink, logger } = capture();
    const fields = { batch: { recipients: [{ phone: '+15550002222', nested: { token: 'canary-deep-token' } }] }, headers: { a: 1 } };
    logger.child({ secret: 'canary-binding' }).info(fields, 'nested');
    expect(sink.text).not.toMatch(/15550002222|canary-deep-token|canary-binding/);
    expect(sink.lines[0]).toMatchObject({
      secret: '[REDACTED]',
      headers: '[REDACTED]',
      batch: { recipients: [{ phone: '[REDACTED]', nested: { token: '[REDACTED]' } }] },
    });
    expect(fields.batch.recipients[0]?.phone).toBe('+15550002222');
  });

  it('carries a stack on error lines through errorFields', () => {
    const { sink, logger } = capture();
    const cause = new Error('socket closed');
    logger.error({ errorCode: 'service_unavailable', ...errorFields(new Error('db down', { cause })) }, 'db failed');
    const [line] = sink.lines;
    expect(line?.stack).toMatch(/Error: db down[\s\S]*Caused by: Error: socket closed/);
    expect(line?.errorType).toBe('Error');
  });

  it('keeps a provider name or a flag under a contact name and scrubs an address under any name', () => {
    const { sink, logger } = capture();
    logger.info({ providers: { push: 'expo', sms: 'acs', email: 'acs' }, preferences: { email: true, sms: false } }, 'notification providers selected');
    logger.info({ recipient: 'canary.parent@example.org', email: 'canary@localhost', phone: '5550009999', note: 'to canary@example.org' }, 'contact');
    const [providers, contact] = sink.lines;
    expect(providers).toMatchObject({ providers: { push: 'expo', sms: 'acs', email: 'acs' }, preferences: { email: true, sms: false } });
    expect(contact).toMatchObject({ recipient: '[REDACTED]', email: '[REDACTED]', phone: '[REDACTED]', note: 'to [REDACTED]' });
    expect(sink.text).not.toMatch(/canary|5550009999/);
  });

  it('redacts and scrubs errors: logged directly, under the error key, nested, and their causes', () => {
    const { sink, logger } = capture();
    const cause = new Error('refresh failed for canary-cause@example.org');
    const error = Object.assign(new Error('upstream said Bearer canaryTOKEN1', { cause }), { token: 'canary-own-token', status: 502 });
    // Warn lines: an error line needs the `stack` and `errorCode` fields besides, which errorFields gives.
    logger.warn(error);
    logger.warn({ error, errorCode: 'internal_error' }, 'with key');
    logger.warn({ attempt: { failure: Object.assign(new Error('x'), { headers: { cookie: 'canary-cookie' } }) } }, 'nested');
    expect(sink.text).not.toMatch(/canary/);
    expect(sink.lines[1]).toMatchObject({ error: { type: 'Error', token: '[REDACTED]', status: 502 } });
    expect(String((sink.lines[1]?.error as { stack: string }).stack)).toContain('caused by: Error: refresh failed for [REDACTED]');
  });

  it('scrubs the message, format arguments included, and values of the log context', async () => {
    const { sink, logger } = capture();
    await runWithLogContext({ traceId: 'c'.repeat(32), userId: null, requestId: 'canary@example.org', endpoint: 'GET /api/v1/me' }, async () => {
      logger.info('sent to %s with %o', 'canary@example.org', { pin: '1234' });
    });
    expect(sink.text).not.toMatch(/canary/);
    expect(sink.lines[0]).toMatchObject({ requestId: '[REDACTED]', endpoint: 'GET /api/v1/me' });
  });

  it("lets a line's own context fields win, with one key each", async () => {
    const { sink, logger } = capture();
    await runWithLogContext({ traceId: 'd'.repeat(32), userId: 'context-user', requestId: 'r1', endpoint: 'POST /x' }, async () => {
      logger.info({ userId: 'field-user', endpoint: 'POST /y' }, 'own fields');
      logger.info('context fields');
    });
    expect(sink.lines.map((line) => [line.userId, line.endpoint, line.requestId])).toEqual([
      ['field-user', 'POST /y', 'r1'],
      ['context-user', 'POST /x', 'r1'],
    ]);
    expect(sink.raw.every((raw) => raw.match(/"userId":/g)?.length === 1 && raw.match(/"endpoint":/g)?.length === 1)).toBe(true);
  });

  it("redacts a child's bindings at any depth, its parents' included, and bindings set later", () => {
    const { sink, logger } = capture();
    const child = logger.child({ session: { sessionToken: 'canary-session' } }).child({ user: { username: 'canary_kid', role: 'member' } });
    child.info('child');
    child.setBindings({ pin: 'canary-pin', note: 'mail canary@example.org' });
    child.info('after setBindings');
    expect(sink.text).not.toMatch(/canary/);
    expect(sink.lines[0]).toMatchObject({ session: { sessionToken: '[REDACTED]' }, user: { username: '[REDACTED]', role: 'member' } });
    expect(sink.lines[1]).toMatchObject({ pin: '[REDACTED]', note: 'mail [REDACTED]' });
  });

  describe('timestamps', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('gives each line the time it was written, lines in the same millisecond included', () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const { sink, logger } = capture();
      vi.setSystemTime(new Date('2026-03-04T05:06:07.008Z'));
      logger.info('first');
      logger.info('same millisecond');
      vi.setSystemTime(new Date('2026-03-04T05:06:07.009Z'));
      logger.info('next millisecond');
      expect(sink.lines.map((line) => line.timestamp)).toEqual([
        '2026-03-04T05:06:07.008Z',
        '2026-03-04T05:06:07.008Z',
        '2026-03-04T05:06:07.009Z',
      ]);
    });
  });
});
