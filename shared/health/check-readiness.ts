import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';

/** One dependency the app needs to serve requests. */
export interface ReadinessProbe {
  readonly dependency: string;
  /** Resolves when the dependency answers; rejects with the library's error otherwise. */
  check(signal: AbortSignal): Promise<void>;
}

export interface ReadinessFailure {
  dependency: string;
  cause: unknown;
}

export interface ReadinessReport {
  ready: boolean;
  /** The process is shutting down: not ready whatever the dependencies say (they were not probed). */
  stopping: boolean;
  checks: Record<string, 'ok' | 'unavailable'>;
  failures: ReadinessFailure[];
}

export interface ReadinessOptions {
  /** Each probe's bound, so a hanging dependency makes the probe answer 503 in time. Default 3 s. */
  timeoutMs?: number;
  /**
   * The shutdown's `stopping` signal: once it aborted the replica is not ready, so the platform
   * stops routing to it while it still serves what arrives meanwhile.
   */
  stopping?: AbortSignal;
}

/**
 * Runs every probe at once, each bounded by `timeoutMs`, so a hanging dependency makes the probe
 * answer 503 in time instead of hanging the platform's readiness check. Once `stopping` aborted,
 * answers not ready without probing.
 */
export async function checkReadiness(probes: readonly ReadinessProbe[], options: ReadinessOptions = {}): Promise<ReadinessReport> {
  if (options.stopping?.aborted) return { ready: false, stopping: true, checks: {}, failures: [] };
  const timeoutMs = options.timeoutMs ?? 3000;
  const outcomes = await Promise.all(
    probes.map(async (probe) => {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        await Promise.race([probe.check(signal), rejectOnAbort(signal)]);
        return { dependency: probe.dependency, ok: true as const };
      } catch (cause) {
        return { dependency: probe.dependency, ok: false as const, cause };
      }
    }),
  );
  const checks: Record<string, 'ok' | 'unavailable'> = {};
  const failures: ReadinessFailure[] = [];
  for (const outcome of outcomes) {
    checks[outcome.dependency] = outcome.ok ? 'ok' : 'unavailable';
    if (!outcome.ok) failures.push({ dependency: outcome.dependency, cause: outcome.cause });
  }
  return { ready: failures.length === 0, stopping: false, checks, failures };
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(new Error('readiness check timed out', { cause: signal.reason })), {
      once: true,
    });
  });
}

/** `GET /api/health`'s body, for the OpenAPI document. */
export const healthSchema = lazySchema(() => z.strictObject({ status: z.literal('ok') }));

/** `GET /api/ready`'s body when every dependency answers. */
export const readinessSchema = lazySchema(() =>
  z.strictObject({ status: z.literal('ready'), checks: z.record(z.string(), z.enum(['ok', 'unavailable'])) }),
);
