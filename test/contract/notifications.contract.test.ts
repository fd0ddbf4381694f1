import { describe, it } from 'vitest';
import { describeNotificationAudienceContract } from './notification-audience-contract';
import { describeNotificationDeliveryContract } from './notification-delivery-contract';
import { mssqlTestDatabase, sqliteTestDatabase } from './test-databases';

/** Tests may read the environment; this is the one place this file does. */
const testSetting = (name: string): string | undefined => process.env[name] || undefined;

describeNotificationDeliveryContract('sqlite', sqliteTestDatabase);
describeNotificationAudienceContract('sqlite', sqliteTestDatabase);

const mssqlConnectionString = testSetting('MSSQL_TEST_CONNECTION_STRING');
if (mssqlConnectionString) {
  describeNotificationDeliveryContract('mssql', mssqlTestDatabase(mssqlConnectionString));
  describeNotificationAudienceContract('mssql', mssqlTestDatabase(mssqlConnectionString));
} else {
  describe.skip('Notification stores contract: mssql (skipped: set MSSQL_TEST_CONNECTION_STRING to a throwaway database to run)', () => {
    it('runs the same contract against SQL Server', () => undefined);
  });
}
