import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { findJsonSyntaxError } from './json-syntax-error';

export const LOCAL_SETTINGS_FILE = 'local.settings.json';

/** A person's mistake in local.settings.json: the message is the one line to show them (file, line, column). */
export class LocalSettingsError extends Error {
  override readonly name = 'LocalSettingsError';
}

/** Why `text` is not JSON, as `local.settings.json line L, column C: …`, never quoting the content (it may hold secrets). */
function syntaxErrorMessage(text: string): string {
  let found;
  try {
    found = findJsonSyntaxError(text);
  } catch {
    found = undefined; // nested too deep to scan; JSON.parse refused it all the same
  }
  if (!found) return `${LOCAL_SETTINGS_FILE} is not valid JSON.`;
  return `${LOCAL_SETTINGS_FILE} line ${found.line}, column ${found.column}: not valid JSON: ${found.problem}.`;
}

/**
 * The `Values` of local.settings.json, as `func start` reads them: strings (numbers and booleans
 * are converted), nothing when the file is missing. Encrypted files are refused: only `func`
 * holds their key. A file that is not JSON throws a LocalSettingsError naming the line and column.
 */
export function readLocalSettings(appRoot: string): Record<string, string> {
  const file = path.join(appRoot, LOCAL_SETTINGS_FILE);
  if (!existsSync(file)) return {};
  // Editors on Windows may save a byte order mark, which func start accepts too.
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new LocalSettingsError(syntaxErrorMessage(text));
  }
  const settings = typeof json === 'object' && json !== null ? (json as { IsEncrypted?: unknown; Values?: unknown }) : {};
  if (settings.IsEncrypted === true) throw new LocalSettingsError(`${LOCAL_SETTINGS_FILE} is encrypted; decrypt it with "func settings decrypt".`);
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
