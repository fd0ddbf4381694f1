import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startAzuriteQueue, type RunningAzurite } from '../../devhost/azurite';
import { ApiClient } from './api-client';
import type { CanaryTracker } from './canaries';
import { generateSigningKey, idTokenClaims, jwksOf, mintIdToken, type TestSigningKey } from './id-tokens';
import { startJwksServer, type JwksServer } from './jwks-server';
import { startLocalHost, type LocalHost } from './local-host';

/** A local host wired to a JWKS server on 127.0.0.1, with its own temp folder and SQLite file. */
export interface AuthTestHost {
  workDir: string;
  databaseFile: string;
  key: TestSigningKey;
  jwks: JwksServer;
  host: LocalHost;
  api: ApiClient;
  issuer: string;
  audience: string;
  /** The suite's own Azurite queue service, when asked for (its connection string is the host's `AzureWebJobsStorage`). */
  azurite: RunningAzurite | undefined;
  /** The environment the host runs with, to start a second host on the same database and provider. */
  hostEnv: Record<string, string>;
  /** A valid ID token for `sub` from the test identity provider (extra claims added or replaced). */
  idToken(sub: string, extra?: Record<string, unknown>): string;
  stop(): Promise<void>;
}

export interface AuthTestHostOptions {
  /** Start an Azurite queue service on a free port for the host's queues. */
  azurite?: boolean;
  /** Runs after Azurite and the provider are up and before the host starts (to seed a queue, say). */
  beforeStart?: (azurite: RunningAzurite | undefined) => Promise<void>;
}

/**
 * Starts the app on the local host for an end-to-end suite: a fresh signing key served as the
 * provider's JWKS, `APP_ENV=test`, a SQLite file in a new temp folder, and `env` on top.
 * @param name names the temp folder and the test provider's issuer and audience.
 */
export async function startAuthTestHost(
  name: string,
  canaries: CanaryTracker,
  env: Record<string, string> = {},
  options: AuthTestHostOptions = {},
): Promise<AuthTestHost> {
  const workDir = mkdtempSync(path.join(tmpdir(), `${name}-e2e-`));
  const databaseFile = path.join(workDir, 'platform.sqlite');
  const issuer = `https://idp.${name}.test/`;
  const audience = `api://${name}-test`;
  const key = generateSigningKey();
  const jwks = await startJwksServer(jwksOf(key));
  const azurite = options.azurite ? await startAzuriteQueue({ port: 0, logFile: path.join(workDir, 'azurite.log') }) : undefined;
  await options.beforeStart?.(azurite);
  const hostEnv = {
    APP_ENV: 'test',
    SQLITE_PATH: databaseFile,
    IDP_JWKS_URI: jwks.url,
    IDP_ISSUER: issuer,
    IDP_AUDIENCE: audience,
    ...(azurite ? { AzureWebJobsStorage: azurite.connectionString } : {}),
    ...env,
  };
  const host = await startLocalHost(hostEnv);
  return {
    workDir,
    databaseFile,
    key,
    jwks,
    host,
    api: new ApiClient(host.baseUrl, canaries),
    issuer,
    audience,
    azurite,
    hostEnv,
    idToken: (sub, extra = {}) => mintIdToken(key, idTokenClaims({ issuer, audience, now: new Date() }, { sub, ...extra })),
    async stop() {
      await host.stop();
      await azurite?.stop();
      await jwks.close();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
