/** App settings as the host sees them: the environment, after local.settings.json `Values`. */
export type AppSettings = Readonly<Record<string, string | undefined>>;

export const DEFAULT_STORAGE_CONNECTION = 'AzureWebJobsStorage';

/**
 * Resolves `%Name%` binding expressions (e.g. `queueName: '%NotificationQueue%'`) from app
 * settings, as the host does when it indexes a function. Throws for a setting that is not set.
 */
export function resolveSettingExpressions(text: string, settings: AppSettings): string {
  return text.replace(/%([^%]+)%/g, (_, name: string) => {
    const value = settings[name];
    if (value === undefined || value === '') throw new Error(`App setting "${name}" is not set (used as %${name}%).`);
    return value;
  });
}

/**
 * The storage connection string a binding's `connection` names: the setting itself, else
 * `AzureWebJobs<name>`, the host's fallback. The default connection comes from the validated config.
 */
export function storageConnectionString(
  connection: unknown,
  settings: AppSettings,
  defaultConnectionString: string | undefined,
): { name: string; value: string | undefined } {
  const name = typeof connection === 'string' && connection.trim() !== '' ? connection.trim() : DEFAULT_STORAGE_CONNECTION;
  if (name === DEFAULT_STORAGE_CONNECTION) return { name, value: defaultConnectionString };
  const fallback = `AzureWebJobs${name}` === DEFAULT_STORAGE_CONNECTION ? defaultConnectionString : settings[`AzureWebJobs${name}`];
  return { name, value: settings[name] || fallback || undefined };
}
