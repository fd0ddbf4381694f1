import type * as mssql from 'mssql';
import { mssqlModule } from './mssql-driver';
import { ConfigError } from '../config';
import { scrubSecrets } from '../logging/scrub';

/**
 * Turns `SQL_CONNECTION_STRING` into the `mssql` driver's configuration. The driver's own parser
 * does the work; this adds the managed-identity spellings it does not know. Errors name the setting
 * and never quote the connection string, which may hold a password.
 */

/** The `Authentication=` values this service accepts, as Microsoft's drivers spell them. */
export const SUPPORTED_AUTHENTICATION_VALUES = [
  'SqlPassword',
  'Active Directory Default',
  'Active Directory Managed Identity',
  'Active Directory MSI',
  'Active Directory Password',
  'Active Directory Integrated',
] as const;

/**
 * The driver configuration for `connectionString`: SQL authentication (`User Id`/`Password`),
 * or Microsoft Entra authentication through `Authentication=Active Directory Default` (the
 * environment's credential chain: managed identity in Azure, a developer login locally) or
 * `Active Directory Managed Identity` / `Active Directory MSI`. With either of those, `User Id`
 * is the client id of a user-assigned identity, as in Microsoft's own drivers.
 * Throws `ConfigError` for a string that cannot be used.
 * @param connectionString an ADO.NET-style connection string.
 */
export function mssqlConfigFromConnectionString(connectionString: string): mssql.config {
  let parsed: ReturnType<typeof mssql.ConnectionPool.parseConnectionString>;
  try {
    parsed = mssqlModule().ConnectionPool.parseConnectionString(connectionString);
  } catch (error) {
    const reason = error instanceof Error ? scrubSecrets(error.message) : 'unreadable';
    throw new ConfigError([`SQL_CONNECTION_STRING: cannot be read (${reason})`]);
  }
  if (!parsed.server) throw new ConfigError(['SQL_CONNECTION_STRING: names no server (set Server=...)']);

  const config: mssql.config = { ...parsed, options: { ...parsed.options }, pool: { ...parsed.pool } };
  const authentication = connectionStringValue(connectionString, 'Authentication');
  if (authentication === undefined) return config;

  const clientId = parsed.user;
  switch (normalizeKeyword(authentication)) {
    case 'active directory default':
      return withoutSqlLogin(config, { type: 'azure-active-directory-default', options: { clientId } });
    case 'active directory managed identity':
    case 'active directory msi':
      return withoutSqlLogin(config, { type: 'azure-active-directory-msi-app-service', options: { clientId } });
    case 'sqlpassword':
    case 'sql password':
    case 'active directory password':
    case 'active directory integrated':
      // Known to the driver's parser, which already mapped them.
      return config;
    default:
      throw new ConfigError([
        // Names only: the line goes to the log, and a value pasted into the wrong keyword may be a secret.
        `SQL_CONNECTION_STRING: the value of its Authentication keyword is not supported; use one of: ${SUPPORTED_AUTHENTICATION_VALUES.join(', ')}`,
      ]);
  }
}

/** Entra authentication replaces the SQL login: `User Id` was the identity's client id, not a user. */
function withoutSqlLogin(config: mssql.config, authentication: NonNullable<mssql.config['authentication']>): mssql.config {
  const { user: _user, password: _password, ...rest } = config;
  // The driver's parser left its own guess beside ours; ours must be the only one.
  delete (rest as { authentication_type?: unknown }).authentication_type;
  return { ...rest, authentication };
}

function normalizeKeyword(value: string): string {
  return value.trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * The value of `key` in an ADO.NET-style connection string (case-insensitive key, the last one
 * wins), unquoted; undefined when absent. Values may be quoted with `"` or `'`, a doubled quote
 * standing for itself, and a key may contain `==` for a literal `=`.
 */
export function connectionStringValue(connectionString: string, key: string): string | undefined {
  const wanted = normalizeKeyword(key);
  let found: string | undefined;
  let index = 0;
  const text = connectionString;
  while (index < text.length) {
    // Key: up to a single '=' ('==' is an escaped '=').
    let rawKey = '';
    while (index < text.length) {
      const char = text[index] as string;
      if (char === '=' && text[index + 1] === '=') {
        rawKey += '=';
        index += 2;
      } else if (char === '=' || char === ';') {
        break;
      } else {
        rawKey += char;
        index += 1;
      }
    }
    if (text[index] !== '=') {
      index += 1;
      continue;
    }
    index += 1;
    while (text[index] === ' ' || text[index] === '\t') index += 1;
    let value = '';
    const quote = text[index];
    if (quote === '"' || quote === "'") {
      index += 1;
      while (index < text.length) {
        if (text[index] === quote) {
          if (text[index + 1] === quote) {
            value += quote;
            index += 2;
            continue;
          }
          index += 1;
          break;
        }
        value += text[index];
        index += 1;
      }
      while (index < text.length && text[index] !== ';') index += 1;
    } else {
      const end = text.indexOf(';', index);
      value = text.slice(index, end === -1 ? text.length : end).trim();
      index = end === -1 ? text.length : end;
    }
    index += 1;
    if (normalizeKeyword(rawKey) === wanted) found = value;
  }
  return found;
}
