import { describe, it } from 'vitest';
import { describeAnnouncementsContract } from './announcements-contract';
import { mssqlTestDatabase, sqliteTestDatabase } from './test-databases';

/** Tests may read the environment; this is the one place this file does. */
const testSetting = (name: string): string | undefined => process.env[name] || undefined;

describeAnnouncementsContract('sqlite', sqliteTestDatabase);

const mssqlConnectionString = testSetting('MSSQL_TEST_CONNECTION_STRING');
if (mssqlConnectionString) {
  describeAnnouncementsContract('mssql', mssqlTestDatabase(mssqlConnectionString));
} else {
  describe.skip('Announcements store contract: mssql (skipped: set MSSQL_TEST_CONNECTION_STRING to a throwaway database to run)', () => {
    it('runs the same contract against SQL Server', () => undefined);
  });
}
