/**
 * The Bicep CLI, the real compiler and linter of infra/: restored from NuGet with the .NET SDK
 * (scripts/bicep/bicep-cli.csproj pins its version) into .tools/bicep, and run on the files.
 * `npm run infra:build` (scripts/infra-build.ts) and the compiled-template tests share it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The repository's root (this file runs from scripts/ under vitest and from dist/scripts/ built). */
export const ROOT = findRoot(__dirname);

function findRoot(from: string): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

/** The restore project: the one place the Bicep CLI's version is written. */
export const RESTORE_PROJECT = path.join(ROOT, 'scripts', 'bicep', 'bicep-cli.csproj');
/** Where the restored package and the compiled template live between runs (ignored by git). */
export const TOOLS_FOLDER = path.join(ROOT, '.tools', 'bicep');
/** The compiled ARM template of infra/main.bicep. */
export const COMPILED_TEMPLATE = path.join(ROOT, '.tools', 'infra', 'main.json');
const PACKAGE = 'Azure.Bicep.CommandLine.linux-x64';

/** The pinned version, read from the restore project. */
export function bicepVersion(): string {
  const match = /<BicepVersion>([^<]+)<\/BicepVersion>/.exec(readFileSync(RESTORE_PROJECT, 'utf8'));
  if (!match?.[1]) throw new Error(`${path.relative(ROOT, RESTORE_PROJECT)} has no <BicepVersion>`);
  return match[1].trim();
}

/** Either the path of the compiler, or why there is none on this machine (nothing was tried). */
export type BicepCli = { readonly available: true; readonly bicep: string; readonly version: string } | { readonly available: false; readonly reason: string };

/** Whether the CI variable says this is a CI run (GitHub Actions and most CI services set CI=true). */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI.toLowerCase() !== 'false' && env.CI !== '0';
}

const DOTNET_ENV = { DOTNET_NOLOGO: '1', DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_SKIP_FIRST_TIME_EXPERIENCE: '1' };

/**
 * The Bicep CLI, restored with `dotnet restore` unless already under .tools/bicep. Throws when the
 * restore itself fails (NuGet unreachable, say): a machine that has the SDK is expected to restore.
 */
export function restoreBicep(): BicepCli {
  const version = bicepVersion();
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { available: false, reason: `the project restores the Bicep CLI for linux-x64 only (this is ${process.platform}-${process.arch})` };
  }
  const packages = path.join(TOOLS_FOLDER, 'packages');
  const bicep = path.join(packages, PACKAGE.toLowerCase(), version, 'tools', 'bicep');
  if (existsSync(bicep)) return { available: true, bicep, version };

  const probe = spawnSync('dotnet', ['--version'], { encoding: 'utf8', env: { ...process.env, ...DOTNET_ENV } });
  if (probe.error || probe.status !== 0) return { available: false, reason: 'the .NET SDK (dotnet) is not on PATH' };

  const obj = path.join(TOOLS_FOLDER, 'obj') + path.sep;
  const restore = spawnSync(
    'dotnet',
    // The intermediate files go under .tools too, so the restore writes nothing beside the project.
    ['restore', RESTORE_PROJECT, '--packages', packages, `-p:BaseIntermediateOutputPath=${obj}`, `-p:MSBuildProjectExtensionsPath=${obj}`, '--verbosity', 'quiet'],
    { encoding: 'utf8', env: { ...process.env, ...DOTNET_ENV } },
  );
  if (restore.status !== 0 || !existsSync(bicep)) {
    const said = `${restore.stdout ?? ''}${restore.stderr ?? ''}`.trim().split('\n').filter((line) => line.trim() !== '').slice(-5).join('\n');
    throw new Error(`dotnet restore of ${PACKAGE} ${version} failed (exit ${restore.status ?? restore.error?.message}):\n${said}`);
  }
  return { available: true, bicep, version };
}

/** One diagnostic of the compiler or the linter. */
export interface BicepDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly level: 'Error' | 'Warning' | 'Info';
  readonly code: string;
  readonly message: string;
}

const DIAGNOSTIC_LINE = /^(.+)\((\d+),(\d+)\) : (Error|Warning|Info) ([\w-]+): (.*)$/;

/** The diagnostics in the CLI's default output format, file paths made relative to the root. */
export function parseDiagnostics(output: string): BicepDiagnostic[] {
  return output.split('\n').flatMap((line) => {
    const match = DIAGNOSTIC_LINE.exec(line.trim());
    if (!match) return [];
    const [, file = '', row = '0', column = '0', level, code = '', message = ''] = match;
    return [{ file: path.relative(ROOT, file), line: Number(row), column: Number(column), level: level as BicepDiagnostic['level'], code, message }];
  });
}

/** A diagnostic as the CLI prints it, with the path from the root. */
export function formatDiagnostic(d: BicepDiagnostic): string {
  return `${d.file}(${d.line},${d.column}) : ${d.level} ${d.code}: ${d.message}`;
}

interface CliRun {
  readonly status: number;
  readonly output: string;
}

function run(bicep: string, args: readonly string[]): CliRun {
  const result = spawnSync(bicep, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...DOTNET_ENV } });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, output: `${result.stdout ?? ''}\n${result.stderr ?? ''}` };
}

/** Every .bicep file under infra/, relative to the root. */
export function bicepFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return walk(full);
      return name.endsWith('.bicep') ? [path.relative(ROOT, full)] : [];
    });
  return walk(path.join(ROOT, 'infra')).sort();
}

/** `bicep build infra/main.bicep` into `outFile`; the template is written only when it compiled. */
export function buildMain(bicep: string, outFile: string = COMPILED_TEMPLATE): { diagnostics: BicepDiagnostic[]; ok: boolean } {
  mkdirSync(path.dirname(outFile), { recursive: true });
  // Written beside and renamed: two test workers compiling at once never read half a file.
  const partial = `${outFile}.${process.pid}.partial`;
  const result = run(bicep, ['build', 'infra/main.bicep', '--outfile', partial]);
  const ok = result.status === 0 && existsSync(partial);
  if (ok) renameSync(partial, outFile);
  return { diagnostics: parseDiagnostics(result.output), ok };
}

/** `bicep lint` over every .bicep file under infra/ with the rules bicepconfig.json gives (the defaults). */
export function lintAll(bicep: string): { diagnostics: BicepDiagnostic[]; ok: boolean } {
  const result = run(bicep, ['lint', '--pattern', 'infra/**/*.bicep']);
  return { diagnostics: parseDiagnostics(result.output), ok: result.status === 0 };
}

/** Where a deployment snapshot is taken: the subscription, tenant and region Azure would fill in. */
export interface SnapshotScope {
  readonly subscriptionId: string;
  readonly tenantId: string;
  readonly location: string;
}

/** A resource as the deployment engine predicts it, expressions it can evaluate offline evaluated. */
export interface PredictedResource {
  readonly id: string;
  readonly type: string;
  readonly name: string;
  readonly apiVersion: string;
  readonly location?: string;
  readonly kind?: string;
  readonly properties?: Record<string, unknown>;
  readonly [key: string]: unknown;
}

/**
 * `bicep snapshot` of a compiled template with the given parameter values: the ARM deployment engine
 * the CLI carries expands its modules, loops and conditions into the resources a deployment would
 * create (offline; `reference()` to a resource not yet deployed stays an expression string).
 */
export function snapshotTemplate(bicep: string, template: string, parameters: Record<string, unknown>, scope: SnapshotScope): PredictedResource[] {
  const folder = path.dirname(template);
  const paramFile = path.join(folder, `snapshot-${process.pid}.bicepparam`);
  const lines = [`using './${path.basename(template)}'`, ...Object.entries(parameters).map(([name, value]) => `param ${name} = ${bicepLiteral(value)}`)];
  writeFileSync(paramFile, `${lines.join('\n')}\n`);
  const result = run(bicep, ['snapshot', paramFile, '--mode', 'overwrite', '--subscription-id', scope.subscriptionId, '--tenant-id', scope.tenantId, '--location', scope.location]);
  const snapshotFile = paramFile.replace(/\.bicepparam$/, '.snapshot.json');
  if (result.status !== 0 || !existsSync(snapshotFile)) throw new Error(`bicep snapshot failed (exit ${result.status}):\n${result.output.trim()}`);
  const snapshot = JSON.parse(readFileSync(snapshotFile, 'utf8')) as { predictedResources: PredictedResource[]; diagnostics?: unknown[] };
  if (snapshot.diagnostics && snapshot.diagnostics.length > 0) throw new Error(`bicep snapshot reported: ${JSON.stringify(snapshot.diagnostics)}`);
  return snapshot.predictedResources;
}

/** A JSON value as a Bicep literal (strings single-quoted with Bicep's escapes). */
function bicepLiteral(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\$\{/g, '\\${').replace(/\n/g, '\\n')}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(bicepLiteral).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{ ${Object.entries(value).map(([key, item]) => `'${key}': ${bicepLiteral(item)}`).join(', ')} }`;
  return 'null';
}
