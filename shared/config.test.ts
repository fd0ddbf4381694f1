import { describe, expect, it } from 'vitest';
import { ConfigError, DEV_CONSENT_TERMS_VERSION, DEVELOPMENT_STORAGE, loadConfig } from './config';

const productionEnv = {
  APP_ENV: 'production',
  IDP_ISSUER: 'https://login.example.com/',
  IDP_AUDIENCE: 'api://platform',
  IDP_JWKS_URI: 'https://login.example.com/keys',
  SQL_CONNECTION_STRING: 'Server=tcp:db.example.net;Database=platform;Authentication=Active Directory Default',
  CHILD_SECRET_PEPPER: 'p'.repeat(40),
  AzureWebJobsStorage: 'DefaultEndpointsProtocol=https;AccountName=x;EndpointSuffix=core.windows.net',
  ACS_CONNECTION_STRING: 'endpoint=https://acs.example.communication.azure.com/;accesskey=c2VjcmV0',
  ACS_SMS_FROM: '+18005550100',
  ACS_EMAIL_SENDER: 'DoNotReply@notify.example.org',
  CONSENT_TERMS_VERSION: '2025-06',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('ACS access', () => {
  const identityEnv = { ...productionEnv, ACS_CONNECTION_STRING: '', ACS_ENDPOINT: 'https://acs-prod.communication.azure.com/', AZURE_CLIENT_ID: 'client-1' };

  it('reaches ACS by ACS_ENDPOINT with the managed identity in production; no connection string needed', () => {
    expect(loadConfig(identityEnv).notifications.acs).toEqual({
      kind: 'identity',
      endpoint: 'https://acs-prod.communication.azure.com',
      clientId: 'client-1',
    });
  });

  it('requires ACS in production and refuses plain HTTP there, naming the setting, never its value', () => {
    expect(problemsOf({ ...identityEnv, ACS_ENDPOINT: '' })).toEqual([expect.stringMatching(/^ACS_ENDPOINT: required in production/)]);
    expect(problemsOf({ ...identityEnv, ACS_ENDPOINT: 'http://acs.example.test' })).toEqual(['ACS_ENDPOINT: must be an https:// URL in production']);
    const plain = 'endpoint=http://acs.example.test/;accesskey=c2VjcmV0';
    expect(problemsOf({ ...productionEnv, ACS_CONNECTION_STRING: plain })).toEqual(['ACS_CONNECTION_STRING: the endpoint must be an https:// URL in production']);
  });

  it('takes a connection string locally and refuses a malformed one without quoting it', () => {
    const connectionString = 'endpoint=http://127.0.0.1:9999/;accesskey=c2VjcmV0';
    expect(loadConfig({ ACS_CONNECTION_STRING: connectionString }).notifications).toMatchObject({
      acs: { kind: 'connection-string', connectionString, endpoint: 'http://127.0.0.1:9999' },
      useOutbox: false,
    });
    const problems = problemsOf({ ACS_CONNECTION_STRING: 'endpoint=https://x.test/;accesskey=not base64!' });
    expect(problems).toEqual(['ACS_CONNECTION_STRING: must look like endpoint=https://…;accesskey=<base64>']);
    expect(problems.join()).not.toContain('not base64');
  });
});

describe('loadConfig', () => {
  it('gives the contract defaults for an empty development environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      appEnv: 'development',
      serviceName: 'api',
      logLevel: 'info',
      logPretty: false,
      database: { kind: 'sqlite', path: '.data/platform.sqlite' },
      storageConnectionString: DEVELOPMENT_STORAGE,
      newUserStatus: 'active',
      bootstrapAdminSubjects: [],
      trustProxyHops: 0,
      port: 7071,
    });
    expect(config.idp).toEqual({
      kind: 'development',
      issuer: 'http://localhost:7071/dev-idp',
      audience: 'community-platform-dev',
      keyDirectory: '.data/dev-idp',
      algorithms: ['RS256'],
    });
    expect(config.childSecretPepper.length).toBeGreaterThanOrEqual(32);
  });

  it('treats empty strings as unset, as local.settings.json writes them', () => {
    const config = loadConfig({ SQL_CONNECTION_STRING: '', IDP_JWKS_URI: '', PORT: '' });
    expect(config.database.kind).toBe('sqlite');
    expect(config.idp.kind).toBe('development');
    expect(config.port).toBe(7071);
  });

  it('accepts a complete production environment and uses SQL Server', () => {
    const config = loadConfig(productionEnv);
    expect(config.database).toEqual({ kind: 'mssql', connectionString: productionEnv.SQL_CONNECTION_STRING });
    expect(config.storageConnectionString).toBe(productionEnv.AzureWebJobsStorage);
  });

  it('names every missing production setting', () => {
    const problems = problemsOf({ APP_ENV: 'production' });
    for (const name of ['IDP_ISSUER', 'IDP_AUDIENCE', 'IDP_JWKS_URI', 'SQL_CONNECTION_STRING', 'CHILD_SECRET_PEPPER']) {
      expect(problems.some((problem) => problem.startsWith(`${name}:`))).toBe(true);
    }
  });

  it('refuses a plain-http JWKS in production', () => {
    expect(problemsOf({ ...productionEnv, IDP_JWKS_URI: 'http://login.example.com/keys' })[0]).toMatch(/https/);
  });

  it('refuses debug logs in production unless explicitly allowed', () => {
    expect(problemsOf({ ...productionEnv, LOG_LEVEL: 'debug' })[0]).toMatch(/ALLOW_DEBUG_IN_PRODUCTION/);
    expect(loadConfig({ ...productionEnv, LOG_LEVEL: 'debug', ALLOW_DEBUG_IN_PRODUCTION: 'true' }).logLevel).toBe('debug');
  });

  it('refuses a short pepper and development storage in production', () => {
    const problems = problemsOf({ ...productionEnv, CHILD_SECRET_PEPPER: 'short', AzureWebJobsStorage: DEVELOPMENT_STORAGE });
    expect(problems.join('\n')).toMatch(/CHILD_SECRET_PEPPER: must be at least 32/);
    expect(problems.join('\n')).toMatch(/AzureWebJobsStorage/);
  });

  it('rejects ill-typed values with the setting name', () => {
    expect(problemsOf({ PORT: 'seventy' })[0]).toMatch(/^PORT:/);
    expect(problemsOf({ APP_ENV: 'staging' })[0]).toMatch(/^APP_ENV:/);
    expect(problemsOf({ NEW_USER_STATUS: 'admin' })[0]).toMatch(/^NEW_USER_STATUS:/);
    expect(problemsOf({ IDP_JWKS_URI: 'not a url' })[0]).toMatch(/^IDP_JWKS_URI:/);
  });

  it('refuses symmetric and none algorithms for provider tokens', () => {
    expect(problemsOf({ IDP_ALGORITHMS: 'RS256,HS256' })[0]).toMatch(/HS256/);
    expect(problemsOf({ IDP_ALGORITHMS: 'none' })[0]).toMatch(/none/);
    const remote = { IDP_JWKS_URI: 'http://127.0.0.1:9/keys', IDP_ISSUER: 'i', IDP_AUDIENCE: 'a' };
    expect(loadConfig({ ...remote, IDP_ALGORITHMS: 'RS256, ES256' }).idp.algorithms).toEqual(['RS256', 'ES256']);
  });

  it('uses a remote provider whenever IDP_JWKS_URI is set, and then needs issuer and audience', () => {
    expect(problemsOf({ IDP_JWKS_URI: 'http://127.0.0.1:9/keys' })[0]).toMatch(/IDP_ISSUER and IDP_AUDIENCE/);
    expect(loadConfig({ IDP_JWKS_URI: 'http://127.0.0.1:9/keys', IDP_ISSUER: 'i', IDP_AUDIENCE: 'a' }).idp).toEqual({
      kind: 'remote',
      issuer: 'i',
      audience: 'a',
      jwksUri: 'http://127.0.0.1:9/keys',
      algorithms: ['RS256'],
    });
  });

  it('reaches the queue storage by managed identity when only the account name is set, as the Functions host does', () => {
    const { AzureWebJobsStorage: _connectionString, ...identityEnv } = productionEnv;
    const config = loadConfig({ ...identityEnv, AzureWebJobsStorage__accountName: 'platformprod', AZURE_CLIENT_ID: 'client-1' });
    expect(config.queueStorage).toEqual({
      kind: 'identity',
      queueServiceUri: 'https://platformprod.queue.core.windows.net',
      clientId: 'client-1',
    });
    expect(config.storageConnectionString).toBeUndefined();
    expect(problemsOf(identityEnv).join('\n')).toMatch(/AzureWebJobsStorage__accountName/);
  });

  it('leaves queues unconfigured outside development unless set', () => {
    expect(loadConfig({ APP_ENV: 'test' }).storageConnectionString).toBeUndefined();
  });
});

describe('identity-provider e-mail verification', () => {
  it("takes OIDC's email_verified by default and trusts no issuer beyond it", () => {
    expect(loadConfig({}).idpEmail).toEqual({ verifiedClaim: 'email_verified', verifiedByIssuer: false });
  });

  it('reads another claim and trust in the issuer from IDP_EMAIL_VERIFIED_CLAIM and IDP_EMAIL_VERIFIED_BY_ISSUER', () => {
    expect(loadConfig({ IDP_EMAIL_VERIFIED_CLAIM: ' xms_edov ' }).idpEmail).toEqual({ verifiedClaim: 'xms_edov', verifiedByIssuer: false });
    expect(loadConfig({ IDP_EMAIL_VERIFIED_BY_ISSUER: 'true' }).idpEmail).toEqual({ verifiedClaim: 'email_verified', verifiedByIssuer: true });
    expect(loadConfig({ IDP_EMAIL_VERIFIED_CLAIM: 'https://example.org/claims/email_verified' }).idpEmail.verifiedClaim).toBe(
      'https://example.org/claims/email_verified',
    );
  });

  it('refuses a claim name with spaces and a flag that is not a boolean', () => {
    expect(problemsOf({ IDP_EMAIL_VERIFIED_CLAIM: 'email verified' })).toEqual([expect.stringMatching(/^IDP_EMAIL_VERIFIED_CLAIM: must be a claim name/)]);
    expect(problemsOf({ IDP_EMAIL_VERIFIED_BY_ISSUER: 'yes' })).toEqual(['IDP_EMAIL_VERIFIED_BY_ISSUER: must be true or false']);
  });
});

describe('adult sign-in limits', () => {
  it('default to 30 failures per address in 10 minutes and 60 failures per minute in all', () => {
    expect(loadConfig({}).adultSignInLimits).toEqual({ addressMaxFailures: 30, addressWindowMs: 600_000, globalMaxFailuresPerMinute: 60 });
    // The production defaults are the same numbers.
    expect(loadConfig(productionEnv).adultSignInLimits).toEqual(loadConfig({}).adultSignInLimits);
  });

  it('are settings', () => {
    const limits = loadConfig({
      ADULT_SIGN_IN_ADDRESS_MAX_FAILURES: '5',
      ADULT_SIGN_IN_ADDRESS_WINDOW_MINUTES: '60',
      ADULT_SIGN_IN_GLOBAL_MAX_FAILURES_PER_MINUTE: '1000',
    }).adultSignInLimits;
    expect(limits).toEqual({ addressMaxFailures: 5, addressWindowMs: 3_600_000, globalMaxFailuresPerMinute: 1000 });
  });

  it('refuse no limit at all and values that are not whole numbers, naming the setting', () => {
    expect(problemsOf({ ADULT_SIGN_IN_ADDRESS_MAX_FAILURES: '0' })[0]).toMatch(/^ADULT_SIGN_IN_ADDRESS_MAX_FAILURES:/);
    expect(problemsOf({ ADULT_SIGN_IN_ADDRESS_WINDOW_MINUTES: '1.5' })[0]).toMatch(/^ADULT_SIGN_IN_ADDRESS_WINDOW_MINUTES: must be a whole number/);
    expect(problemsOf({ ADULT_SIGN_IN_ADDRESS_WINDOW_MINUTES: '1441' })[0]).toMatch(/^ADULT_SIGN_IN_ADDRESS_WINDOW_MINUTES:/);
    expect(problemsOf({ ADULT_SIGN_IN_GLOBAL_MAX_FAILURES_PER_MINUTE: 'many' })[0]).toMatch(/^ADULT_SIGN_IN_GLOBAL_MAX_FAILURES_PER_MINUTE:/);
  });
});

describe('telemetry backend settings', () => {
  it('sends telemetry over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, naming the service after SERVICE_NAME by default', () => {
    expect(loadConfig({}).otlp).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).otlp).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', SERVICE_NAME: 'notifications' }).otlp).toEqual({
      endpoint: 'http://127.0.0.1:4318',
      serviceName: 'notifications',
    });
    expect(
      loadConfig({ ...productionEnv, OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.net/otlp', OTEL_SERVICE_NAME: 'community-platform' }).otlp,
    ).toEqual({ endpoint: 'https://otel.example.net/otlp', serviceName: 'community-platform' });
  });

  it('refuses an endpoint that is not an http(s) base URL, without quoting it', () => {
    for (const endpoint of ['grpc://canary-collector:4317', 'canary-collector:4318', 'https://canary-collector/otlp?key=canary-secret']) {
      const problems = problemsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      expect(problems).toEqual([expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT: must /)]);
      expect(problems.join('\n')).not.toContain('canary');
    }
  });
});

describe('libuv thread pool', () => {
  it("reads UV_THREADPOOL_SIZE for the hasher's limit: libuv's 4 by default, whole numbers 1 to 1024", () => {
    expect(loadConfig({}).threadPoolSize).toBe(4);
    expect(loadConfig({ UV_THREADPOOL_SIZE: '2' }).threadPoolSize).toBe(2);
    for (const bad of ['0', '1.5', 'two', '1025']) {
      expect(problemsOf({ UV_THREADPOOL_SIZE: bad })).toEqual([expect.stringMatching(/^UV_THREADPOOL_SIZE: /)]);
    }
  });
});

describe('consent terms version', () => {
  it('records consents under CONSENT_TERMS_VERSION; outside production `development` when unset', () => {
    expect(loadConfig({}).consentTermsVersion).toBe(DEV_CONSENT_TERMS_VERSION);
    expect(DEV_CONSENT_TERMS_VERSION).toBe('development');
    expect(loadConfig({ CONSENT_TERMS_VERSION: ' v3.1_b ' }).consentTermsVersion).toBe('v3.1_b');
    expect(loadConfig(productionEnv).consentTermsVersion).toBe('2025-06');
  });

  it('is required in production, where a record must name the terms parents saw', () => {
    expect(problemsOf({ ...productionEnv, CONSENT_TERMS_VERSION: '' })).toEqual([expect.stringMatching(/^CONSENT_TERMS_VERSION: required in production/)]);
  });

  it('takes a short label only, without quoting a refused value', () => {
    for (const bad of ['x'.repeat(33), '-2025', 'terms of 2025', 'canary<script>']) {
      const problems = problemsOf({ CONSENT_TERMS_VERSION: bad });
      expect(problems, bad).toEqual([expect.stringMatching(/^CONSENT_TERMS_VERSION: must be a short version label/)]);
      expect(problems.join('\n')).not.toContain('canary');
    }
    expect(loadConfig({ CONSENT_TERMS_VERSION: 'x'.repeat(32) }).consentTermsVersion).toHaveLength(32);
  });
});
