import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUEUE_SETTINGS, hostSettingsFrom, readHostSettings } from './host-json';

describe('host.json settings', () => {
  it("reads the project's own host.json", () => {
    const settings = readHostSettings(path.resolve(__dirname, '..'));
    expect(settings).toEqual({
      routePrefix: 'api',
      queues: {
        batchSize: 16,
        newBatchThreshold: 8,
        maxDequeueCount: 5,
        visibilityTimeoutMs: 10_000,
        maxPollingIntervalMs: 2_000,
        messageEncoding: 'base64',
      },
    });
  });

  it('falls back to the extension defaults', () => {
    expect(hostSettingsFrom({})).toEqual({ routePrefix: 'api', queues: DEFAULT_QUEUE_SETTINGS });
    expect(hostSettingsFrom({ extensions: { http: { routePrefix: '' }, queues: { batchSize: 4 } } })).toMatchObject({
      routePrefix: '',
      queues: { batchSize: 4, newBatchThreshold: 2 },
    });
  });

  it('refuses settings the extension would refuse', () => {
    expect(() => hostSettingsFrom({ extensions: { queues: { batchSize: 64 } } })).toThrow(/batchSize/);
    expect(() => hostSettingsFrom({ extensions: { queues: { messageEncoding: 'utf8' } } })).toThrow(/messageEncoding/);
    expect(() => hostSettingsFrom({ extensions: { queues: { visibilityTimeout: '10s' } } })).toThrow(/visibilityTimeout/);
  });
});
