import { app } from '@azure/functions';
import { appServices } from '../shared/composition-root';
import { errorFields } from '../shared/logging/logger';

/** Start-up and shutdown lines, and a clean close of what the process holds open. */
const services = appServices();

app.hook.appStart(async () => {
  services.logger.info(
    { appEnv: services.config.appEnv, nodeVersion: process.version, database: services.config.database.kind },
    'app started',
  );
  // The dummy hash for unknown child usernames is made now: made on the first unknown username,
  // it would make that answer slower than a wrong PIN's and tell that the name does not exist.
  try {
    await services.childAuth.hasher.warmUp();
  } catch (error) {
    services.logger.error({ errorCode: 'internal_error', ...errorFields(error) }, 'child secret hasher warm-up failed');
  }
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
