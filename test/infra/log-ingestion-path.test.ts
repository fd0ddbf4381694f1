import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './alert-catalogue';

/**
 * The app's JSON log lines reach the workspace once. The app writes them to
 * stdout; the Functions host reads the worker's stdout and logs each line under the category
 * `Host.Function.Console` to every logger provider it has: the console (the container's stdout,
 * which the Container Apps environment sends to `ContainerAppConsoleLogs`) and Application Insights
 * (`AppTraces`). Every query reads `ContainerAppConsoleLogs`, so that is the path kept; host.json
 * turns the category off for the Application Insights provider only (its alias `ApplicationInsights`,
 * `logging.applicationInsights.logLevel`), and the app's own SDK captures no console output.
 */
interface IngestionConfig {
  hostJson: string;
  functionAppBicep: string;
  appSettingsBicep: string;
  appInsightsSource: string;
}

const read = (relative: string): string => readFileSync(path.join(ROOT, relative), 'utf8');
const CONSOLE_CATEGORY = 'Host.Function.Console';

/** The paths on which an app log line reaches the workspace, by the configuration. */
function ingestionPaths(config: IngestionConfig): string[] {
  const host = JSON.parse(config.hostJson) as {
    logging?: { logLevel?: Record<string, string>; applicationInsights?: { logLevel?: Record<string, string> } };
  };
  const levelFor = (levels: Record<string, string> | undefined): string | undefined => {
    if (!levels) return undefined;
    // The longest category prefix wins, as in Microsoft.Extensions.Logging's rule selection.
    const key = Object.keys(levels)
      .filter((name) => name === 'default' || CONSOLE_CATEGORY === name || CONSOLE_CATEGORY.startsWith(`${name}.`))
      .sort((a, b) => (a === 'default' ? -1 : b === 'default' ? 1 : a.length - b.length))
      .pop();
    return key ? levels[key] : undefined;
  };
  const generalLevel = levelFor(host.logging?.logLevel) ?? 'Information';
  const appInsightsLevel = levelFor(host.logging?.applicationInsights?.logLevel) ?? generalLevel;
  // An app setting would override host.json (AzureFunctionsJobHost__logging__...).
  const overridden = /AzureFunctionsJobHost__logging/i.test(config.appSettingsBicep) || /AzureFunctionsJobHost__logging/i.test(config.functionAppBicep);

  const paths: string[] = [];
  const consoleCategoryOn = /category: 'ContainerAppConsoleLogs'\s+enabled: true/.test(config.functionAppBicep);
  if (generalLevel !== 'None' && consoleCategoryOn && /destination: 'azure-monitor'/.test(config.functionAppBicep)) {
    paths.push('ContainerAppConsoleLogs (stdout, the environment\'s diagnostic setting)');
  }
  if (appInsightsLevel !== 'None' || overridden) paths.push('AppTraces (the host\'s Application Insights logger)');
  if (!/console: NOTHING_ENABLED/.test(config.appInsightsSource)) paths.push('AppTraces (the app\'s own SDK capturing console output)');
  return paths;
}

const deployed: IngestionConfig = {
  hostJson: read('host.json'),
  functionAppBicep: read('infra/modules/function-app.bicep'),
  appSettingsBicep: read('infra/main.bicep'),
  appInsightsSource: read('shared/telemetry/app-insights.ts'),
};

describe('one ingestion path for the app\'s log lines', () => {
  it('is ContainerAppConsoleLogs, the table every query reads', () => {
    expect(ingestionPaths(deployed)).toEqual(['ContainerAppConsoleLogs (stdout, the environment\'s diagnostic setting)']);
    expect(read('infra/alerts/functions/AppLogLines.kql')).toMatch(/^ContainerAppConsoleLogs$/m);
  });

  it('fails when both paths are on (the check can fail)', () => {
    const withoutFilter = deployed.hostJson.replace(/"Host\.Function\.Console": "None"/, '"Host.Function.Console": "Information"');
    expect(withoutFilter).not.toBe(deployed.hostJson);
    expect(ingestionPaths({ ...deployed, hostJson: withoutFilter })).toHaveLength(2);
    const overriding = `${deployed.appSettingsBicep}\n      AzureFunctionsJobHost__logging__applicationInsights__logLevel__default: 'Information'`;
    expect(ingestionPaths({ ...deployed, appSettingsBicep: overriding })).toHaveLength(2);
    const sdkConsole = deployed.appInsightsSource.replace('console: NOTHING_ENABLED', 'console: { enabled: true }');
    expect(ingestionPaths({ ...deployed, appInsightsSource: sdkConsole })).toHaveLength(2);
  });

  it('finds no path at all when the category is off for every provider (the lines would be lost)', () => {
    const everywhere = JSON.stringify({ logging: { logLevel: { default: 'Information', 'Host.Function': 'None' } } });
    expect(ingestionPaths({ ...deployed, hostJson: everywhere })).toEqual([]);
  });
});
