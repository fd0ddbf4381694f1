import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config';
import { openDatabase } from './open-database';

describe('openDatabase', () => {
  it('opens SQLite or SQL Server by configuration, connecting nothing yet', async () => {
    const sqlite = openDatabase({ kind: 'sqlite', path: ':memory:' });
    expect(sqlite.dialect).toBe('sqlite');
    await sqlite.close();
    const mssql = openDatabase({ kind: 'mssql', connectionString: 'Server=127.0.0.1,1;Database=x;User Id=u;Password=p' });
    expect(mssql.dialect).toBe('mssql');
    await mssql.close();
  });

  it('throws ConfigError at once for an unusable connection string', () => {
    expect(() =>
      openDatabase({ kind: 'mssql', connectionString: 'Server=db;Authentication=Active Directory Interactive' }),
    ).toThrow(ConfigError);
  });
});
