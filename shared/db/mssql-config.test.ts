import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config';
import { connectionStringValue, mssqlConfigFromConnectionString } from './mssql-config';

const AZURE = 'Server=tcp:platform.database.windows.net,1433;Initial Catalog=platform;Encrypt=True;Connection Timeout=30';

describe('mssqlConfigFromConnectionString', () => {
  it('maps an ordinary SQL authentication string through the driver parser', () => {
    const config = mssqlConfigFromConnectionString(`${AZURE};User ID=app;Password=p@ssw0rd`);
    expect(config).toMatchObject({
      server: 'platform.database.windows.net',
      port: 1433,
      database: 'platform',
      user: 'app',
      connectionTimeout: 30_000,
      options: { encrypt: true },
    });
    expect(config.authentication).toBeUndefined();
  });

  it('maps Active Directory Default to the credential chain, with no SQL login', () => {
    const config = mssqlConfigFromConnectionString(`${AZURE};Authentication=Active Directory Default`);
    expect(config.authentication).toEqual({ type: 'azure-active-directory-default', options: { clientId: undefined } });
    expect(config).not.toHaveProperty('user');
    expect(config).not.toHaveProperty('authentication_type');
  });

  it('maps Active Directory Managed Identity, with User Id as the identity client id', () => {
    for (const spelling of ['Active Directory Managed Identity', '"active  directory msi"']) {
      const config = mssqlConfigFromConnectionString(`${AZURE};Authentication=${spelling};User Id=1111-2222`);
      expect(config.authentication).toEqual({
        type: 'azure-active-directory-msi-app-service',
        options: { clientId: '1111-2222' },
      });
      expect(config).not.toHaveProperty('user');
      expect(config).not.toHaveProperty('password');
    }
  });

  it('sizes the pool from Max Pool Size, as the deployment sets it (infra sqlMaxPoolSize)', () => {
    const deployed = `${AZURE};Authentication=Active Directory Managed Identity;User Id=1111-2222;Max Pool Size=6`;
    expect(mssqlConfigFromConnectionString(deployed).pool).toMatchObject({ max: 6 });
  });

  it('leaves the spellings the driver knows to the driver', () => {
    const config = mssqlConfigFromConnectionString(`${AZURE};Authentication=SqlPassword;User Id=app;Password=x`);
    expect(config).toMatchObject({ user: 'app', password: 'x' });
    expect(config.authentication).toBeUndefined();
  });

  it('refuses an unknown Authentication value, naming the setting and not the password', () => {
    const attempt = () =>
      mssqlConfigFromConnectionString(`${AZURE};Authentication=Active Directory Interactive;Password=TopSecret1`);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/SQL_CONNECTION_STRING: the value of its Authentication keyword is not supported/);
    try {
      attempt();
    } catch (error) {
      expect(String((error as Error).message)).not.toContain('TopSecret1');
      // Names only, not the value given (which a wrong paste could make a secret).
      expect(String((error as Error).message)).not.toContain('Interactive');
    }
  });

  it('refuses a string without a server', () => {
    expect(() => mssqlConfigFromConnectionString('Database=platform;User Id=app;Password=x')).toThrow(/names no server/);
  });
});

describe('connectionStringValue', () => {
  it('reads a key case-insensitively, unquoting values', () => {
    const text = `Server=s; authentication = "Active Directory ""Default"""; Password='a;b'; Key==Name=v`;
    expect(connectionStringValue(text, 'Authentication')).toBe('Active Directory "Default"');
    expect(connectionStringValue(text, 'password')).toBe('a;b');
    expect(connectionStringValue(text, 'key=name')).toBe('v');
    expect(connectionStringValue(text, 'missing')).toBeUndefined();
    expect(connectionStringValue('A=1;A=2', 'a')).toBe('2');
  });
});
