import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scrubSecrets } from '../../shared/logging/scrub';
import { ROOT } from './alert-catalogue';
import { httpFunctions } from './code-names';

/**
 * The Bicep cannot be compiled here (no Bicep CLI; `az bicep build --file infra/main.bicep` is the
 * check to run where it exists), so these tests read it as text: the files it loads exist and every
 * alert file is loaded, modules exist, parameters line up with the parameter file, secrets are
 * secure parameters and no secret value is written anywhere, the app settings are ones the app reads.
 */
const INFRA = path.join(ROOT, 'infra');

function filesUnder(dir: string, ending: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return filesUnder(full, ending);
    return name.endsWith(ending) ? [full] : [];
  });
}

const bicepFiles = filesUnder(INFRA, '.bicep');
const bicep = new Map(bicepFiles.map((file) => [file, readFileSync(file, 'utf8')]));
const read = (relative: string): string => readFileSync(path.join(ROOT, relative), 'utf8');
const mainBicep = read('infra/main.bicep');

/** Files a Bicep file loads with loadJsonContent / loadTextContent, resolved from its folder. */
function loadedFiles(): { from: string; file: string }[] {
  return [...bicep].flatMap(([file, text]) =>
    [...text.matchAll(/load(?:Json|Text)Content\('([^']+)'/g)].map((match) => ({
      from: path.relative(ROOT, file),
      file: path.resolve(path.dirname(file), match[1] ?? ''),
    })),
  );
}

/** `param name type` declarations of a Bicep file, with whether they have a default. */
function params(text: string): Map<string, { hasDefault: boolean; secure: boolean }> {
  const found = new Map<string, { hasDefault: boolean; secure: boolean }>();
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const match = /^param (\w+) \S+( = .*)?$/.exec(line);
    if (!match) return;
    let secure = false;
    for (let back = index - 1; back >= 0 && /^@/.test(lines[back] ?? ''); back -= 1) secure ||= (lines[back] ?? '').startsWith('@secure()');
    found.set(match[1] ?? '', { hasDefault: match[2] !== undefined, secure });
  });
  return found;
}

/** A Bicep parameter's default, when it is a plain number. */
function numberDefault(text: string, name: string): number | undefined {
  const match = new RegExp(`^param ${name} int = (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}

describe('infra/ Bicep, read as text', () => {
  it('keeps every replica\'s connection pool within the default database\'s workers', () => {
    // GP_S_Gen5_1: 75 concurrent workers; a few are left for migrations and operators.
    expect(mainBicep).toMatch(/name: 'GP_S_Gen5'[\s\S]*?capacity: 1\n/);
    const replicas = numberDefault(mainBicep, 'maxReplicas');
    const pool = numberDefault(mainBicep, 'sqlMaxPoolSize');
    expect(replicas).toBeDefined();
    expect(pool).toBeDefined();
    expect((replicas ?? Infinity) * (pool ?? Infinity)).toBeLessThanOrEqual(75 - 10);
    expect(mainBicep).toContain('Max Pool Size=${sqlMaxPoolSize}');
  });

  it('loads only files that exist', () => {
    const loaded = loadedFiles();
    expect(loaded.length).toBeGreaterThanOrEqual(6);
    expect(loaded.filter(({ file }) => !existsSync(file)).map(({ from, file }) => `${from} → ${path.relative(ROOT, file)}`)).toEqual([]);
  });

  it('loads every alert file, every workspace function and the workbook', () => {
    const loaded = new Set(loadedFiles().map(({ file }) => file));
    const expected = [
      ...readdirSync(path.join(INFRA, 'alerts')).filter((name) => name.endsWith('.json')).map((name) => path.join(INFRA, 'alerts', name)),
      ...readdirSync(path.join(INFRA, 'alerts/functions')).map((name) => path.join(INFRA, 'alerts/functions', name)),
      ...readdirSync(path.join(INFRA, 'workbooks')).map((name) => path.join(INFRA, 'workbooks', name)),
    ];
    expect(expected.filter((file) => !loaded.has(file)).map((file) => path.relative(ROOT, file))).toEqual([]);
  });

  it('references only module files that exist, and every module file is used', () => {
    const referenced = [...bicep].flatMap(([file, text]) =>
      [...text.matchAll(/^module \w+ '([^']+)'/gm)].map((match) => path.resolve(path.dirname(file), match[1] ?? '')),
    );
    expect(referenced.filter((file) => !existsSync(file))).toEqual([]);
    const modules = bicepFiles.filter((file) => file !== path.join(INFRA, 'main.bicep'));
    expect(modules.filter((file) => !referenced.includes(file)).map((file) => path.relative(ROOT, file))).toEqual([]);
  });

  it('has a parameter file that sets only parameters of main.bicep, and every required one', () => {
    const declared = params(mainBicep);
    const file = JSON.parse(read('infra/main.parameters.json')) as { parameters: Record<string, { value: unknown }> };
    const given = Object.keys(file.parameters);
    expect(given.filter((name) => !declared.has(name))).toEqual([]);
    expect([...declared].filter(([name, param]) => !param.hasDefault && !given.includes(name)).map(([name]) => name)).toEqual([]);
    // Values come from the azd environment, never literals in the file.
    expect(Object.entries(file.parameters).filter(([, p]) => typeof p.value !== 'string' || !/^\$\{[A-Z0-9_]+(=[^}]*)?\}$/.test(p.value))).toEqual([]);
  });

  it('declares every secret-looking parameter @secure(), in every Bicep file', () => {
    const insecure = [...bicep].flatMap(([file, text]) =>
      [...params(text)]
        .filter(([name, param]) => /pepper|secret|token|password|webhook|connectionstring/i.test(name) && !param.secure)
        .filter(([name]) => !/Configured$/.test(name))
        .map(([name]) => `${path.relative(ROOT, file)}: ${name}`),
    );
    expect(insecure).toEqual([]);
  });

  it('writes no secret value in Bicep, parameter or environment example files', () => {
    const files = [...bicepFiles, path.join(INFRA, 'main.parameters.json'), ...filesUnder(path.join(INFRA, 'environments'), '.example')];
    const leaking = files.filter((file) => {
      const text = readFileSync(file, 'utf8');
      return scrubSecrets(text) !== text || /AccountKey=|SharedAccessKey=|InstrumentationKey=|Password=/i.test(text);
    });
    expect(leaking.map((file) => path.relative(ROOT, file))).toEqual([]);
    // The check itself catches a written secret.
    expect(scrubSecrets('value: \'Endpoint=sb://x/;SharedAccessKeyName=a;SharedAccessKey=abcdefghijklmnop\'')).not.toContain('abcdefghijklmnop');
  });

  it('gives the app only settings it reads (local.settings.example.json lists them all)', () => {
    const known = new Set(Object.keys((JSON.parse(read('local.settings.example.json')) as { Values: object }).Values));
    const settingsBlock = /settings: \{\n([\s\S]*?)\n {4}\}/.exec(mainBicep)?.[1] ?? '';
    const appSettings = [...settingsBlock.matchAll(/^\s+(\w+):/gm)].map((match) => match[1] ?? '');
    const functionApp = read('infra/modules/function-app.bicep');
    const secretSettings = [...functionApp.matchAll(/setting: '(\w+)'/g)].map((match) => match[1] ?? '');
    expect(appSettings.length).toBeGreaterThanOrEqual(10);
    expect(secretSettings).toEqual(expect.arrayContaining(['CHILD_SECRET_PEPPER', 'APPLICATIONINSIGHTS_CONNECTION_STRING']));
    expect([...appSettings, ...secretSettings].filter((name) => !known.has(name))).toEqual([]);
  });

  it('routes alerts to the action group their entry names: paging and digest', () => {
    const alerts = read('infra/modules/alerts.bicep');
    expect(alerts).toMatch(/paging: pagingActionGroupId\n\s+digest: digestActionGroupId/);
    expect(alerts.match(/actionGroupIds\[alert\.actionGroup\]/g)?.length).toBe(3);
    expect(mainBicep).toContain('pagingActionGroupId: actionGroups.outputs.pagingId');
    expect(mainBicep).toContain('digestActionGroupId: actionGroups.outputs.digestId');
    const groups = read('infra/modules/action-groups.bicep');
    const paging = /resource paging [\s\S]*?\n\}/.exec(groups)?.[0] ?? '';
    const digest = /resource digest [\s\S]*?\n\}/.exec(groups)?.[0] ?? '';
    for (const receivers of ['smsReceivers', 'voiceReceivers', 'azureAppPushReceivers', 'webhookReceivers']) expect(paging).toContain(receivers);
    expect(digest).toContain('emailReceivers');
    expect(digest).not.toMatch(/sms|voice|push/i);
  });

  it('runs the function app with kind functionapp, probes on /api/health and /api/ready, and at least one replica', () => {
    const app = read('infra/modules/function-app.bicep');
    expect(app).toContain("kind: 'functionapp'");
    expect(app).toMatch(/type: 'Liveness'\s+httpGet: \{\s+path: '\/api\/health'/);
    expect(app).toMatch(/type: 'Readiness'\s+httpGet: \{\s+path: '\/api\/ready'/);
    const endpoints = new Set(httpFunctions().flatMap((fn) => fn.endpoints));
    expect(endpoints).toContain('GET /api/health');
    expect(endpoints).toContain('GET /api/ready');
    expect(mainBicep).toMatch(/@minValue\(1\)\n@description\([^\n]*\)\nparam minReplicas int = 1/);
    expect(read('Dockerfile')).toMatch(/^FROM mcr\.microsoft\.com\/azure-functions\/node:4-node22$/m);
  });

  it('keeps logs 30 days and exports them to cold storage with a lifecycle policy', () => {
    expect(mainBicep).toMatch(/param logRetentionDays int = 30\n/);
    const monitoring = read('infra/modules/monitoring.bicep');
    expect(monitoring).toContain("'Microsoft.OperationalInsights/workspaces/dataExports@");
    expect(monitoring).toContain("'Microsoft.Storage/storageAccounts/managementPolicies@");
    expect(monitoring).toContain("IngestionMode: 'LogAnalytics'");
  });

  it('names azure.yaml\'s infra folder and Dockerfile, which exist', () => {
    const azureYaml = read('azure.yaml');
    expect(azureYaml).toMatch(/path: infra\n\s+module: main/);
    expect(azureYaml).toContain('path: ./Dockerfile');
    expect(existsSync(path.join(ROOT, 'infra/hooks/postprovision.sh'))).toBe(true);
  });
});
