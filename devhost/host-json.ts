import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseTimeSpan } from './timespan';

/** `extensions.queues` of host.json with the defaults of the Storage Queues extension (v5). */
export interface QueueSettings {
  batchSize: number;
  newBatchThreshold: number;
  maxDequeueCount: number;
  /** Delay before a failed message is visible again. */
  visibilityTimeoutMs: number;
  /** Upper bound of the back-off between empty polls. */
  maxPollingIntervalMs: number;
  messageEncoding: 'base64' | 'none';
}

/** The parts of host.json the local host honours. */
export interface HostSettings {
  routePrefix: string;
  queues: QueueSettings;
}

/** Defaults when host.json says nothing (the polling maximum is the development default, 2 s). */
export const DEFAULT_QUEUE_SETTINGS: QueueSettings = {
  batchSize: 16,
  newBatchThreshold: 8,
  maxDequeueCount: 5,
  visibilityTimeoutMs: 0,
  maxPollingIntervalMs: 2_000,
  messageEncoding: 'base64',
};

/**
 * Reads `<appRoot>/host.json`, with the app settings that override it as the Functions host reads
 * them (`AzureFunctionsJobHost__extensions__queues__visibilityTimeout`, say); throws for a file that
 * is not JSON or a setting that is out of range.
 */
export function readHostSettings(appRoot: string, settings: Readonly<Record<string, string | undefined>> = {}): HostSettings {
  const file = path.join(appRoot, 'host.json');
  const json: unknown = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  return hostSettingsFrom(withOverrides(json, settings));
}

const OVERRIDE_PREFIX = 'AzureFunctionsJobHost__';

/**
 * host.json with `AzureFunctionsJobHost__a__b` app settings written over `a.b` (keys matched without
 * regard to case, as the host's configuration does); whole numbers become numbers.
 */
export function withOverrides(hostJson: unknown, settings: Readonly<Record<string, string | undefined>>): unknown {
  const result = structuredClone(record(hostJson));
  for (const [name, value] of Object.entries(settings)) {
    if (!name.startsWith(OVERRIDE_PREFIX) || value === undefined) continue;
    const keys = name.slice(OVERRIDE_PREFIX.length).split('__');
    let node = result;
    keys.forEach((key, index) => {
      const existing = Object.keys(node).find((candidate) => candidate.toLowerCase() === key.toLowerCase()) ?? key;
      if (index === keys.length - 1) node[existing] = /^\d+$/.test(value) ? Number(value) : value;
      else node = node[existing] = { ...record(node[existing]) };
    });
  }
  return result;
}

/** Interprets a parsed host.json. */
export function hostSettingsFrom(hostJson: unknown): HostSettings {
  const extensions = record(record(hostJson).extensions);
  const http = record(extensions.http);
  const queues = record(extensions.queues);
  const batchSize = integer(queues.batchSize, 'batchSize', 1, 32) ?? DEFAULT_QUEUE_SETTINGS.batchSize;
  const encoding = queues.messageEncoding ?? DEFAULT_QUEUE_SETTINGS.messageEncoding;
  if (typeof encoding !== 'string' || !['base64', 'none'].includes(encoding.toLowerCase())) {
    throw new Error('host.json extensions.queues.messageEncoding must be "base64" or "none".');
  }
  return {
    routePrefix: typeof http.routePrefix === 'string' ? http.routePrefix : 'api',
    queues: {
      batchSize,
      newBatchThreshold: integer(queues.newBatchThreshold, 'newBatchThreshold', 0, 1000) ?? Math.floor(batchSize / 2),
      maxDequeueCount: integer(queues.maxDequeueCount, 'maxDequeueCount', 1, 1000) ?? DEFAULT_QUEUE_SETTINGS.maxDequeueCount,
      visibilityTimeoutMs: duration(queues.visibilityTimeout, 'visibilityTimeout') ?? DEFAULT_QUEUE_SETTINGS.visibilityTimeoutMs,
      maxPollingIntervalMs:
        duration(queues.maxPollingInterval, 'maxPollingInterval') ?? DEFAULT_QUEUE_SETTINGS.maxPollingIntervalMs,
      messageEncoding: encoding.toLowerCase() as QueueSettings['messageEncoding'],
    },
  };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function integer(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`host.json extensions.queues.${name} must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

function duration(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const milliseconds = typeof value === 'string' ? parseTimeSpan(value) : undefined;
  if (milliseconds === undefined || milliseconds < 0) {
    throw new Error(`host.json extensions.queues.${name} must be a TimeSpan such as "00:00:30".`);
  }
  return milliseconds;
}
