import '../devhost/require-node';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { isListening } from '../devhost/azurite';
import { applySettings, readLocalSettings } from '../devhost/local-settings';
import { DEV_IDP_KEY_DIRECTORY, DEVELOPMENT_STORAGE, loadConfig } from '../shared/config';

/**
 * `npm run reset`, from the app's root: deletes the local data, the embedded SQLite database and
 * Azurite's queues (`.data/azurite/`), and keeps the development identity provider's key pair
 * (`.data/dev-idp/`), so tokens minted before still verify and nothing else needs redoing. Refuses
 * while the local host or Azurite runs (their files are open), in production, and for a database
 * that is not the embedded one.
 */
async function main(): Promise<number> {
  const root = process.cwd();
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (env.DEVHOST_SKIP_LOCAL_SETTINGS !== 'true') applySettings(readLocalSettings(root), env);
  const config = loadConfig(env);
  if (config.appEnv === 'production') return refuse('APP_ENV is production; reset is for local data only.');
  if (config.database.kind !== 'sqlite') return refuse('SQL_CONNECTION_STRING is set; reset deletes only the embedded SQLite database.');
  if (await isListening('127.0.0.1', config.port)) return refuse(`something listens on port ${config.port}: stop npm start first.`);
  const azuriteData = path.join(root, '.data', 'azurite');
  const ownAzurite = config.storageConnectionString === DEVELOPMENT_STORAGE;
  if (ownAzurite && (await isListening('127.0.0.1', 10001))) return refuse('Azurite listens on port 10001: stop it (or npm start) first.');

  const removed: string[] = [];
  const database = path.resolve(root, config.database.path);
  for (const file of [database, `${database}-wal`, `${database}-shm`, `${database}-journal`]) {
    if (existsSync(file)) {
      rmSync(file, { force: true });
      removed.push(path.relative(root, file));
    }
  }
  if (ownAzurite && existsSync(azuriteData)) {
    rmSync(azuriteData, { recursive: true, force: true });
    removed.push(path.relative(root, azuriteData));
  }
  process.stderr.write(
    `reset: removed ${removed.length > 0 ? removed.join(', ') : 'nothing (already clean)'}; kept ${DEV_IDP_KEY_DIRECTORY}/ (the development identity provider's keys).\n` +
      (ownAzurite ? '' : 'reset: AzureWebJobsStorage is not the development storage, so its queues were left alone.\n'),
  );
  return 0;
}

function refuse(reason: string): number {
  process.stderr.write(`reset: ${reason}\n`);
  return 1;
}

void main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`reset: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
