import { runRedriveCommand } from './redrive-command';

/** `npm run redrive-poison -- [--dry-run] [--announcement <id>]`: sends the fan-out's poison queue again. */
void runRedriveCommand(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then((exitCode) => {
  process.exitCode = exitCode;
});
