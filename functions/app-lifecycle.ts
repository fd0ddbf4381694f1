import { app } from '@azure/functions';
import { appServices } from '../shared/composition-root';
import { errorFields } from '../shared/logging/logger';

/** Start-up and shutdown lines, and a clean close of what the process holds open. */
const services = appServices();

app.hook.appStart(() => {
  services.logger.info(
    { appEnv: services.config.appEnv, nodeVersion: process.version, database: services.config.database.kind },
    'app started',
  );
});

app.hook.appTerminate(async () => {
  services.logger.info('app stopping');
  try {
    await services.telemetry.flush();
    await services.database.close();
  } catch (error) {
    services.logger.error({ errorCode: 'internal_error', ...errorFields(error) }, 'clean shutdown failed');
  }
  services.logger.info('app stopped');
});
