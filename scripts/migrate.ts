import { runMigrateCommand } from './migrate-command';

/** `npm run migrate`: applies pending schema migrations to the configured database. */
void runMigrateCommand(process.env).then((exitCode) => {
  process.exitCode = exitCode;
});
