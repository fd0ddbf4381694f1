import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../shared/config';
import { systemClock, type Clock } from '../shared/ports/clock';
import { loadOrCreateDevIdpKeys, mintDevIdToken } from '../shared/auth/id-token/dev-identity-provider';

export const DEV_TOKEN_USAGE = `Usage: npm run dev:token -- --sub <subject> [--email <address>] [--ttl <seconds>]

Prints an ID token of the development identity provider, for POST /api/v1/auth/session
({"idToken": "..."}). Works when the app uses the development identity provider, i.e. outside
production with IDP_JWKS_URI unset (environment or local.settings.json).

  --sub     the user's subject at the identity provider (required)
  --email   adds a verified e-mail address (email_verified: true)
  --ttl     lifetime in seconds (default 3600)
  --help    shows this text
`;

export interface DevTokenCommandIo {
  /** Receives the token and nothing else, so `$(npm run -s dev:token -- --sub x)` works. */
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export interface DevTokenCommandOptions {
  clock?: Clock;
  /** Where a relative key directory is resolved; the app's root, as for the app itself. */
  cwd?: string;
}

/**
 * `npm run dev:token`: mints a development ID token with the same settings the app reads, so the
 * app accepts it. Resolves with the exit code: 0 done, 1 refused (remote provider, bad config),
 * 2 bad arguments.
 * @param env the app's settings (the script merges local.settings.json `Values` under the environment).
 */
export async function runDevTokenCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: DevTokenCommandIo,
  options: DevTokenCommandOptions = {},
): Promise<number> {
  let args: { sub?: string | undefined; email?: string | undefined; ttl?: string | undefined; help?: boolean | undefined };
  try {
    args = parseArgs({
      args: [...argv],
      options: {
        sub: { type: 'string' },
        email: { type: 'string' },
        ttl: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    io.stderr(`dev:token: ${(error as Error).message}\n\n${DEV_TOKEN_USAGE}`);
    return 2;
  }
  if (args.help) {
    io.stderr(DEV_TOKEN_USAGE);
    return 0;
  }
  const sub = args.sub?.trim() ?? '';
  if (sub.length === 0 || sub.length > 255) {
    io.stderr(`dev:token: --sub is required (1 to 255 characters)\n\n${DEV_TOKEN_USAGE}`);
    return 2;
  }
  const email = args.email?.trim();
  if (email !== undefined && !/^[^@\s]+@[^@\s]+$/.test(email)) {
    io.stderr('dev:token: --email must look like name@example.org\n');
    return 2;
  }
  const ttlSeconds = args.ttl === undefined ? 3600 : Number(args.ttl);
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
    io.stderr('dev:token: --ttl must be a positive whole number of seconds\n');
    return 2;
  }

  let idp: Config['idp'];
  try {
    idp = loadConfig(env).idp;
  } catch (error) {
    io.stderr(`dev:token: ${(error as Error).message}\n`);
    return 1;
  }
  if (idp.kind !== 'development') {
    io.stderr(
      (idp.kind === 'remote'
        ? `dev:token: the app is configured for the identity provider at ${idp.jwksUri} (IDP_JWKS_URI is set), `
        : 'dev:token: the app is configured for the identity providers of IDP_PROVIDERS, ') +
        'so it would refuse development tokens. Unset IDP_JWKS_URI and IDP_PROVIDERS in the environment and in ' +
        'local.settings.json to use the development identity provider.\n',
    );
    return 1;
  }

  try {
    const keys = await loadOrCreateDevIdpKeys(path.resolve(options.cwd ?? process.cwd(), idp.keyDirectory));
    const token = await mintDevIdToken(
      keys,
      { issuer: idp.issuer, audience: idp.audience, sub, ttlSeconds, ...(email !== undefined ? { email } : {}) },
      options.clock ?? systemClock,
    );
    io.stdout(`${token}\n`);
    return 0;
  } catch (error) {
    io.stderr(`dev:token: ${(error as Error).message}\n`);
    return 1;
  }
}
