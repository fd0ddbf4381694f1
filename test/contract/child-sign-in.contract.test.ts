import { describe, it } from 'vitest';
import { describeChildSignInContract } from './child-sign-in-contract';
import { mssqlTestDatabase, sqliteTestDatabase } from './test-databases';

/** Tests may read the environment; this is the one place this file does. */
const testSetting = (name: string): string | undefined => process.env[name] || undefined;

describeChildSignInContract('sqlite', sqliteTestDatabase);

const mssqlConnectionString = testSetting('MSSQL_TEST_CONNECTION_STRING');
if (mssqlConnectionString) {
  describeChildSignInContract('mssql', mssqlTestDatabase(mssqlConnectionString));
} else {
  describe.skip('Child sign-in contract: mssql (skipped: set MSSQL_TEST_CONNECTION_STRING to a throwaway database to run)', () => {
    it('runs the same contract against SQL Server', () => undefined);
  });
}
