import { describe, it } from 'vitest';
import { describeSignInThrottleContract } from './sign-in-throttle-contract';
import { mssqlTestDatabase, sqliteTestDatabase } from './test-databases';

/** Tests may read the environment; this is the one place this file does. */
const testSetting = (name: string): string | undefined => process.env[name] || undefined;

describeSignInThrottleContract('sqlite', sqliteTestDatabase);

const mssqlConnectionString = testSetting('MSSQL_TEST_CONNECTION_STRING');
if (mssqlConnectionString) {
  describeSignInThrottleContract('mssql', mssqlTestDatabase(mssqlConnectionString));
} else {
  describe.skip('Sign-in throttle store contract: mssql (skipped: set MSSQL_TEST_CONNECTION_STRING to a throwaway database to run)', () => {
    it('runs the same contract against SQL Server', () => undefined);
  });
}
