import { applySettings, readLocalSettings } from '../devhost/local-settings';
import { runDevTokenCommand } from './dev-token-command';

/**
 * `npm run dev:token -- --sub <sub> [--email <e>]`, run from the app's root: reads the settings as
 * the local host does (local.settings.json `Values` under the environment, the environment
 * winning) and prints a development ID token on stdout.
 */
async function main(): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  try {
    if (env.DEVHOST_SKIP_LOCAL_SETTINGS !== 'true') applySettings(readLocalSettings(process.cwd()), env);
  } catch (error) {
    process.stderr.write(`dev:token: ${(error as Error).message}\n`);
    return 1;
  }
  return runDevTokenCommand(process.argv.slice(2), env, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}

void main().then((exitCode) => {
  process.exitCode = exitCode;
});
