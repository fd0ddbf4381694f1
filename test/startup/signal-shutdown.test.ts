import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseLogLine } from '../helpers/log-schema';
import { startLocalHost } from '../helpers/local-host';
import { loadLikeTheWorker } from './worker-load';

/**
 * The Node.js worker installs no SIGTERM handler and runs `appTerminate` only on
 * the host's `WorkerTerminate`, so on a scale-in the app must stop itself: flush telemetry, close
 * the database, start no new work, end the process inside the grace period, once.
 */
const workDir = mkdtempSync(path.join(tmpdir(), 'signal-shutdown-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const env = (name: string): Record<string, string> => ({
  APP_ENV: 'test',
  SQLITE_PATH: path.join(workDir, `${name}.sqlite`),
  SHUTDOWN_GRACE_SECONDS: '6',
});

const messages = (lines: readonly Record<string, unknown>[]): unknown[] => lines.map((line) => line.message);
const count = (lines: readonly Record<string, unknown>[], message: string): number => lines.filter((line) => line.message === message).length;

describe('SIGTERM', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`loaded as the worker loads the app (no host handler), ${signal} stops the app once and ends the process with 0`, async () => {
      const run = loadLikeTheWorker(env(`worker-${signal}`));
      const loaded = await run.loaded;
      // One handler per signal, the app's: the worker adds none.
      expect(loaded).toMatchObject({ sigtermListeners: 1, sigintListeners: 1 });
      expect(loaded.registrations).toBeGreaterThan(20);
      const started = Date.now();
      run.kill(signal);
      const { code, signal: killedBy, stdout } = await run.ended;
      expect({ code, killedBy }).toEqual({ code: 0, killedBy: null });
      expect(Date.now() - started).toBeLessThan(5_000);
      const lines = stdout.map(parseLogLine);
      expect(lines.find((line) => line.message === 'shutdown begun')).toMatchObject({ reason: signal });
      for (const message of ['shutdown begun', 'app stopping', 'app stopped']) expect(count(lines, message), message).toBe(1);
      expect(messages(lines).at(-1)).toBe('app stopped');
    });
  }

  it('under the local host, runs the app\'s own stop once (the host stops only its listeners), then the host\'s last line', async () => {
    const host = await startLocalHost(env('local-host'));
    const response = await fetch(`${host.baseUrl}/api/health`);
    expect(response.status).toBe(200);
    expect(await host.stop()).toBe(0);
    expect(host.invalidLines).toEqual([]);
    for (const message of ['shutdown begun', 'app stopping', 'app stopped', 'local host stopping', 'local host stopped']) {
      expect(count(host.lines, message), message).toBe(1);
    }
    const names = messages(host.lines);
    expect(names.indexOf('app stopped')).toBeLessThan(names.indexOf('local host stopped'));
    expect(host.lines.at(-1)).toMatchObject({ message: 'local host stopped', exitCode: 0 });
  });
});
