import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUEUE_SETTINGS, hostSettingsFrom, readHostSettings, withOverrides } from './host-json';

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

  it('takes AzureFunctionsJobHost__ app settings over host.json, as the Functions host does', () => {
    const settings = readHostSettings(path.resolve(__dirname, '..'), {
      AzureFunctionsJobHost__extensions__queues__visibilityTimeout: '00:00:00',
      AzureFunctionsJobHost__Extensions__Queues__MaxDequeueCount: '3',
      AzureFunctionsJobHost__extensions__http__routePrefix: 'v',
      NOT_AN_OVERRIDE__extensions__queues__batchSize: '1',
    });
    expect(settings).toMatchObject({ routePrefix: 'v', queues: { visibilityTimeoutMs: 0, maxDequeueCount: 3, batchSize: 16 } });
    expect(withOverrides({ extensions: { queues: { batchSize: 4 } } }, { AzureFunctionsJobHost__extensions__queues__messageEncoding: 'none' })).toEqual({
      extensions: { queues: { batchSize: 4, messageEncoding: 'none' } },
    });
    expect(() => readHostSettings(path.resolve(__dirname, '..'), { AzureFunctionsJobHost__extensions__queues__batchSize: '64' })).toThrow(/batchSize/);
  });

  it('refuses settings the extension would refuse', () => {
    expect(() => hostSettingsFrom({ extensions: { queues: { batchSize: 64 } } })).toThrow(/batchSize/);
    expect(() => hostSettingsFrom({ extensions: { queues: { messageEncoding: 'utf8' } } })).toThrow(/messageEncoding/);
    expect(() => hostSettingsFrom({ extensions: { queues: { visibilityTimeout: '10s' } } })).toThrow(/visibilityTimeout/);
  });
});
