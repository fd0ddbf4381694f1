import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const LOCAL_SETTINGS_FILE = 'local.settings.json';

/**
 * The `Values` of local.settings.json, as `func start` reads them: strings (numbers and booleans
 * are converted), nothing when the file is missing. Encrypted files are refused: only `func`
 * holds their key.
 */
export function readLocalSettings(appRoot: string): Record<string, string> {
  const file = path.join(appRoot, LOCAL_SETTINGS_FILE);
  if (!existsSync(file)) return {};
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new Error(`${LOCAL_SETTINGS_FILE} is not valid JSON.`);
  }
  const settings = typeof json === 'object' && json !== null ? (json as { IsEncrypted?: unknown; Values?: unknown }) : {};
  if (settings.IsEncrypted === true) throw new Error(`${LOCAL_SETTINGS_FILE} is encrypted; decrypt it with "func settings decrypt".`);
  const values = typeof settings.Values === 'object' && settings.Values !== null ? settings.Values : {};
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string') result[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') result[name] = String(value);
  }
  return result;
}

/**
 * Copies settings into the environment without overriding what is already set, so a variable
 * exported in the shell wins over the file, as with `func start`.
 * @returns the names that were applied (never the values).
 */
export function applySettings(settings: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv): string[] {
  const applied: string[] = [];
  for (const [name, value] of Object.entries(settings)) {
    if (env[name] === undefined) {
      env[name] = value;
      applied.push(name);
    }
  }
  return applied;
}
