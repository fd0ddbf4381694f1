import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scrubSecrets } from '../../shared/logging/scrub';
import { ROOT } from './alert-catalogue';
import { httpFunctions } from './code-names';

/**
 * Facts of the files themselves, read as text: the files the Bicep loads exist and every alert file
 * is loaded, every module is used, secret-looking parameters are @secure() in every file, and no
 * secret value is written in any file. What the deployment holds (alerts, routes, app settings,
 * retention, the parameter file against the template) is read from the compiled template, in
 * compiled-template.test.ts.
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

  it('loads every alert file, every workspace function and the workbook', () => {
    const loaded = new Set(loadedFiles().map(({ file }) => file));
    const expected = [
      ...readdirSync(path.join(INFRA, 'alerts')).filter((name) => name.endsWith('.json')).map((name) => path.join(INFRA, 'alerts', name)),
      ...readdirSync(path.join(INFRA, 'alerts/functions')).map((name) => path.join(INFRA, 'alerts/functions', name)),
      ...readdirSync(path.join(INFRA, 'workbooks')).map((name) => path.join(INFRA, 'workbooks', name)),
    ];
    expect(expected.filter((file) => !loaded.has(file)).map((file) => path.relative(ROOT, file))).toEqual([]);
  });

  // A loaded file or module that does not exist fails the compile; one nothing uses does not.
  it('uses every module file', () => {
    const referenced = [...bicep].flatMap(([file, text]) =>
      [...text.matchAll(/^module \w+ '([^']+)'/gm)].map((match) => path.resolve(path.dirname(file), match[1] ?? '')),
    );
    expect(referenced.length).toBeGreaterThanOrEqual(10);
    const modules = bicepFiles.filter((file) => file !== path.join(INFRA, 'main.bicep'));
    expect(modules.filter((file) => !referenced.includes(file)).map((file) => path.relative(ROOT, file))).toEqual([]);
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

  it('names azure.yaml\'s infra folder and Dockerfile, which exist', () => {
    const azureYaml = read('azure.yaml');
    expect(azureYaml).toMatch(/path: infra\n\s+module: main/);
    expect(azureYaml).toContain('path: ./Dockerfile');
    expect(existsSync(path.join(ROOT, 'infra/hooks/postprovision.sh'))).toBe(true);
  });
});
