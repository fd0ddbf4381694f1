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
      bootstrapAdmins: [],
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
    expect(config.hashingSecret.length).toBeGreaterThanOrEqual(32);
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

  it('migrates on open outside production unless MIGRATE_ON_OPEN=false; never in production, which refuses true', () => {
    expect(loadConfig({}).migrateOnOpen).toBe(true);
    expect(loadConfig({ APP_ENV: 'test', MIGRATE_ON_OPEN: 'false' }).migrateOnOpen).toBe(false);
    expect(loadConfig(productionEnv).migrateOnOpen).toBe(false);
    expect(problemsOf({ ...productionEnv, MIGRATE_ON_OPEN: 'true' })).toEqual([expect.stringMatching(/^MIGRATE_ON_OPEN: production never migrates/)]);
    expect(problemsOf({ MIGRATE_ON_OPEN: 'yes' })).toEqual([expect.stringMatching(/^MIGRATE_ON_OPEN: /)]);
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
    // The telemetry backend's setting is checked at load too (never echoing the value).
    const badConnection = 'InstrumentationKey=not-a-guid;IngestionEndpoint=https://canary.example/';
    expect(problemsOf({ APPLICATIONINSIGHTS_CONNECTION_STRING: badConnection })).toEqual([
      'APPLICATIONINSIGHTS_CONNECTION_STRING: has no valid InstrumentationKey (a GUID)',
    ]);
    expect(problemsOf({ APPLICATIONINSIGHTS_CONNECTION_STRING: badConnection, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual([]);
    expect(problemsOf({ APPLICATIONINSIGHTS_CONNECTION_STRING: 'InstrumentationKey=00000000-0000-0000-0000-000000000000' })).toEqual([]);
    // One message names the whole range, whichever bound (or wholeness) was missed.
    expect(problemsOf({ PORT: '70000' })).toEqual(['PORT: must be a port number from 0 to 65535']);
    expect(problemsOf({ HASH_QUEUE_MAX: '0' })).toEqual(['HASH_QUEUE_MAX: must be a whole number from 1 to 100000']);
    expect(problemsOf({ TRUST_PROXY_HOPS: '-1' })).toEqual(['TRUST_PROXY_HOPS: must be a whole number, at least 0']);
    expect(problemsOf({ FANOUT_BATCH_SIZE: '2.5' })).toEqual(['FANOUT_BATCH_SIZE: must be a whole number from 1 to 5000']);
    expect(loadConfig({ FANOUT_BATCH_SIZE: ' 5000 ' }).notifications.batchSize).toBe(5000);
    expect(problemsOf({ APP_ENV: 'staging' })[0]).toMatch(/^APP_ENV:/);
    expect(problemsOf({ NEW_USER_STATUS: 'admin' })[0]).toMatch(/^NEW_USER_STATUS:/);
    expect(problemsOf({ IDP_JWKS_URI: 'not a url' })[0]).toMatch(/^IDP_JWKS_URI:/);
  });

  it('refuses symmetric and none algorithms for provider tokens', () => {
    // Names the setting and the rule, not the values given: the problem goes to the config-failure line.
    expect(problemsOf({ IDP_ALGORITHMS: 'RS256,HS256' })[0]).toMatch(/^IDP_ALGORITHMS: .*HMAC/);
    expect(problemsOf({ IDP_ALGORITHMS: 'RS256,HS256' })[0]).not.toMatch(/HS256/);
    expect(problemsOf({ IDP_ALGORITHMS: 'none' })[0]).toMatch(/none/);
    const remote = { IDP_JWKS_URI: 'http://127.0.0.1:9/keys', IDP_ISSUER: 'i', IDP_AUDIENCE: 'a' };
    expect(loadConfig({ ...remote, IDP_ALGORITHMS: 'RS256, ES256' }).idp).toMatchObject({ algorithms: ['RS256', 'ES256'] });
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

describe('the hash queue', () => {
  it('bounds the waiting line in front of Argon2: HASH_QUEUE_MAX (128) and HASH_QUEUE_MAX_WAIT_MS (3000)', () => {
    expect(loadConfig({}).hashQueue).toEqual({ maxQueued: 128, maxWaitMs: 3000 });
    expect(loadConfig({ HASH_QUEUE_MAX: '8', HASH_QUEUE_MAX_WAIT_MS: '500' }).hashQueue).toEqual({ maxQueued: 8, maxWaitMs: 500 });
    for (const bad of ['0', '1.5', 'many']) {
      expect(problemsOf({ HASH_QUEUE_MAX: bad })).toEqual([expect.stringMatching(/^HASH_QUEUE_MAX: /)]);
      expect(problemsOf({ HASH_QUEUE_MAX_WAIT_MS: bad })).toEqual([expect.stringMatching(/^HASH_QUEUE_MAX_WAIT_MS: /)]);
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

describe('several identity providers (IDP_PROVIDERS)', () => {
  const apple = {
    name: 'apple',
    issuer: 'https://appleid.apple.com',
    audiences: ['org.example.family', 'org.example.family.web'],
    jwksUri: 'https://appleid.apple.com/auth/keys',
    nonceRequired: true,
  };
  const google = { name: 'google', discoveryUrl: 'https://accounts.google.com/.well-known/openid-configuration', audiences: ['123.apps.googleusercontent.com'] };
  const { IDP_ISSUER: _issuer, IDP_AUDIENCE: _audience, IDP_JWKS_URI: _jwks, ...productionWithoutIdp } = productionEnv;

  it('reads a JSON list, each provider with its own keys, audiences, algorithms, e-mail rule and nonce rule', () => {
    const config = loadConfig({ ...productionWithoutIdp, IDP_PROVIDERS: JSON.stringify([apple, google]), IDP_EMAIL_VERIFIED_CLAIM: 'email_verified' });
    expect(config.idp).toEqual({
      kind: 'providers',
      providers: [
        {
          name: 'apple',
          issuer: 'https://appleid.apple.com',
          audiences: ['org.example.family', 'org.example.family.web'],
          keys: { kind: 'jwks', jwksUri: 'https://appleid.apple.com/auth/keys' },
          algorithms: ['RS256'],
          emailVerification: { verifiedClaim: 'email_verified', verifiedByIssuer: false },
          nonceRequired: true,
        },
        {
          name: 'google',
          issuer: undefined,
          audiences: ['123.apps.googleusercontent.com'],
          keys: { kind: 'discovery', discoveryUrl: 'https://accounts.google.com/.well-known/openid-configuration' },
          algorithms: ['RS256'],
          emailVerification: { verifiedClaim: 'email_verified', verifiedByIssuer: false },
          nonceRequired: false,
        },
      ],
    });
  });

  it('reads the numbered settings the same way (IDP_PROVIDERS__<n>__<FIELD>), defaults from the single-provider settings', () => {
    const config = loadConfig({
      IDP_ALGORITHMS: 'RS256,ES256',
      IDP_EMAIL_VERIFIED_BY_ISSUER: 'true',
      IDP_PROVIDERS__0__ISSUER: 'https://tenant.ciamlogin.com/tid/v2.0',
      IDP_PROVIDERS__0__AUDIENCES: 'client-a, client-b',
      IDP_PROVIDERS__0__DISCOVERY_URL: 'https://tenant.ciamlogin.com/tid/v2.0/.well-known/openid-configuration',
      IDP_PROVIDERS__1__NAME: 'auth0',
      IDP_PROVIDERS__1__ISSUER: 'https://example.eu.auth0.com/',
      IDP_PROVIDERS__1__AUDIENCES: 'spa-client',
      IDP_PROVIDERS__1__JWKS_URI: 'https://example.eu.auth0.com/.well-known/jwks.json',
      IDP_PROVIDERS__1__ALGORITHMS: 'RS256',
      IDP_PROVIDERS__1__EMAIL_VERIFIED_BY_ISSUER: 'false',
      IDP_PROVIDERS__1__NONCE_REQUIRED: 'true',
    });
    expect(config.idp).toMatchObject({
      kind: 'providers',
      providers: [
        { name: 'provider-0', audiences: ['client-a', 'client-b'], algorithms: ['RS256', 'ES256'], emailVerification: { verifiedByIssuer: true }, nonceRequired: false },
        { name: 'auth0', audiences: ['spa-client'], algorithms: ['RS256'], emailVerification: { verifiedByIssuer: false }, nonceRequired: true },
      ],
    });
  });

  it('keeps the single-provider settings working, and refuses both at once', () => {
    expect(loadConfig(productionEnv).idp).toMatchObject({ kind: 'remote', issuer: 'https://login.example.com/' });
    expect(problemsOf({ ...productionEnv, IDP_PROVIDERS: JSON.stringify([apple]) })).toEqual([expect.stringMatching(/^IDP_PROVIDERS: set either/)]);
    expect(problemsOf({ IDP_PROVIDERS: JSON.stringify([apple]), IDP_PROVIDERS__0__ISSUER: 'https://x.test' })[0]).toMatch(/^IDP_PROVIDERS: set either the JSON/);
  });

  it('names every problem by provider position and field, never quoting a value, and the settings to fix', () => {
    const secretish = 'https://appleid.apple.com/canary-value-xyz';
    const bad = [
      { ...apple, jwksUri: 'http://appleid.apple.com/auth/keys', algorithms: ['HS256'], extra: 1 },
      { audiences: [], discoveryUrl: `${secretish}/openid` },
      { ...apple, name: 'apple-again' },
    ];
    let error: unknown;
    try {
      loadConfig({ ...productionWithoutIdp, IDP_PROVIDERS: JSON.stringify(bad) });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        'IDP_PROVIDERS (provider 0): extra: unknown field',
        'IDP_PROVIDERS (provider 0): jwksUri: must be an https:// URL in production',
        expect.stringMatching(/^IDP_PROVIDERS \(provider 0\): algorithms: none and HMAC/),
        expect.stringMatching(/^IDP_PROVIDERS \(provider 1\): audiences: required/),
        'IDP_PROVIDERS (provider 1): discoveryUrl: must end with /.well-known/openid-configuration',
      ]),
    );
    expect(problems.join('\n')).not.toContain('canary-value');
    expect((error as ConfigError).settings).toEqual(['IDP_PROVIDERS']);
    expect(problemsOf({ IDP_PROVIDERS: JSON.stringify([apple, { ...apple, name: 'twin' }]) })).toEqual([
      expect.stringMatching(/^IDP_PROVIDERS: two providers have the same issuer/),
    ]);
    expect(problemsOf({ IDP_PROVIDERS: '{not json' })).toEqual(['IDP_PROVIDERS: must be a JSON array of provider objects']);
    expect(problemsOf({ IDP_PROVIDERS: '[]' })).toEqual(['IDP_PROVIDERS: lists no provider']);
    expect(problemsOf({ IDP_PROVIDERS__1__ISSUER: 'https://x.test', IDP_PROVIDERS__1__AUDIENCES: 'a', IDP_PROVIDERS__1__JWKS_URI: 'https://x.test/k' })).toEqual([
      'IDP_PROVIDERS: the numbered settings must count from 0 without gaps',
    ]);
    expect(problemsOf({ IDP_PROVIDERS__0__AUDIENCE: 'a' })[0]).toMatch(/^IDP_PROVIDERS: unknown setting IDP_PROVIDERS__0__AUDIENCE/);
  });

  it('satisfies the production identity-provider requirement instead of IDP_ISSUER, IDP_AUDIENCE and IDP_JWKS_URI', () => {
    expect(problemsOf(productionWithoutIdp)).toEqual([
      expect.stringMatching(/^IDP_ISSUER: required/),
      expect.stringMatching(/^IDP_AUDIENCE: required/),
      expect.stringMatching(/^IDP_JWKS_URI: required/),
    ]);
    expect(problemsOf({ ...productionWithoutIdp, IDP_PROVIDERS: JSON.stringify([apple, google]) })).toEqual([]);
  });
});

describe('CORS_ALLOWED_ORIGINS', () => {
  it('is off by default and takes a list of origins', () => {
    expect(loadConfig({}).corsAllowedOrigins).toEqual([]);
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: 'https://admin.example.org, http://localhost:5173/' }).corsAllowedOrigins).toEqual([
      'https://admin.example.org',
      'http://localhost:5173',
    ]);
  });

  it('refuses a wildcard, a path, and plain http in production', () => {
    for (const value of ['*', 'https://admin.example.org/console', 'admin.example.org']) {
      expect(problemsOf({ CORS_ALLOWED_ORIGINS: value })).toEqual([expect.stringMatching(/^CORS_ALLOWED_ORIGINS: each entry must be an origin/)]);
    }
    expect(problemsOf({ ...productionEnv, CORS_ALLOWED_ORIGINS: 'http://admin.example.org' })).toEqual([
      expect.stringMatching(/^CORS_ALLOWED_ORIGINS:/),
    ]);
  });
});

describe('BOOTSTRAP_ADMIN_SUBJECTS', () => {
  const apple = { name: 'apple', issuer: 'https://appleid.apple.com', audiences: ['org.example.family'], jwksUri: 'https://appleid.apple.com/auth/keys' };
  const auth0 = { name: 'auth0', issuer: 'https://example.eu.auth0.com/', audiences: ['spa'], jwksUri: 'https://example.eu.auth0.com/.well-known/jwks.json' };
  const google = { name: 'google', discoveryUrl: 'https://accounts.google.com/.well-known/openid-configuration', audiences: ['123.apps.googleusercontent.com'] };
  const providers = JSON.stringify([apple, auth0]);

  it('binds a bare subject to the one configured issuer (remote or development)', () => {
    expect(loadConfig({ ...productionEnv, BOOTSTRAP_ADMIN_SUBJECTS: 'admin-1, auth0|abc123' }).bootstrapAdmins).toEqual([
      { issuer: 'https://login.example.com/', subject: 'admin-1' },
      // Auth0's subjects hold a `|`: text before it that is no http(s) URL makes a bare subject.
      { issuer: 'https://login.example.com/', subject: 'auth0|abc123' },
    ]);
    expect(loadConfig({ BOOTSTRAP_ADMIN_SUBJECTS: 'dev-admin' }).bootstrapAdmins).toEqual([{ issuer: 'http://localhost:7071/dev-idp', subject: 'dev-admin' }]);
  });

  it('accepts <issuer>|<subject>, splitting at the first | so the subject may hold more', () => {
    const config = loadConfig({
      IDP_PROVIDERS: providers,
      BOOTSTRAP_ADMIN_SUBJECTS: 'https://appleid.apple.com|000123.abc, https://example.eu.auth0.com/|auth0|abc123',
    });
    expect(config.bootstrapAdmins).toEqual([
      { issuer: 'https://appleid.apple.com', subject: '000123.abc' },
      { issuer: 'https://example.eu.auth0.com/', subject: 'auth0|abc123' },
    ]);
    expect(loadConfig({ ...productionEnv, BOOTSTRAP_ADMIN_SUBJECTS: 'https://login.example.com/|admin-1' }).bootstrapAdmins).toEqual([
      { issuer: 'https://login.example.com/', subject: 'admin-1' },
    ]);
  });

  it('refuses a bare subject with several providers, naming the setting and never the value', () => {
    let error: unknown;
    try {
      loadConfig({ IDP_PROVIDERS: providers, BOOTSTRAP_ADMIN_SUBJECTS: 'https://appleid.apple.com|ok-admin,canary-bare-subject' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([expect.stringMatching(/^BOOTSTRAP_ADMIN_SUBJECTS: entry 2 is a bare subject; with IDP_PROVIDERS/)]);
    expect((error as ConfigError).settings).toEqual(['BOOTSTRAP_ADMIN_SUBJECTS']);
    expect((error as ConfigError).message).not.toContain('canary');
    expect(problemsOf({ IDP_PROVIDERS: providers, BOOTSTRAP_ADMIN_SUBJECTS: 'auth0|abc123' })).toEqual([
      expect.stringMatching(/^BOOTSTRAP_ADMIN_SUBJECTS: entry 1 is a bare subject/),
    ]);
  });

  it('refuses an issuer no configured provider has, unless one is known only by discovery', () => {
    // A trailing slash makes another issuer: such an entry could never match, so it is a typo to fix.
    expect(problemsOf({ IDP_PROVIDERS: providers, BOOTSTRAP_ADMIN_SUBJECTS: 'https://example.eu.auth0.com|canary-sub' })).toEqual([
      'BOOTSTRAP_ADMIN_SUBJECTS: entry 1 names an issuer that is not a configured identity provider\'s',
    ]);
    expect(problemsOf({ ...productionEnv, BOOTSTRAP_ADMIN_SUBJECTS: 'https://elsewhere.test/|admin-1' })).toEqual([
      expect.stringMatching(/^BOOTSTRAP_ADMIN_SUBJECTS: entry 1 names an issuer that is not/),
    ]);
    expect(problemsOf({ IDP_PROVIDERS: providers, BOOTSTRAP_ADMIN_SUBJECTS: 'https://appleid.apple.com|' })).toEqual([
      expect.stringMatching(/^BOOTSTRAP_ADMIN_SUBJECTS: entry 1 is a bare subject/),
    ]);
    const withDiscovery = JSON.stringify([apple, google]);
    expect(loadConfig({ IDP_PROVIDERS: withDiscovery, BOOTSTRAP_ADMIN_SUBJECTS: 'https://accounts.google.com|1234' }).bootstrapAdmins).toEqual([
      { issuer: 'https://accounts.google.com', subject: '1234' },
    ]);
  });
});
