import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildMain, formatDiagnostic, inCi, restoreBicep, ROOT, snapshotTemplate, type BicepCli, type PredictedResource } from '../../scripts/bicep-cli';

/**
 * The compiled ARM template of infra/main.bicep (the real Bicep CLI, restored from NuGet as
 * `npm run infra:build` does) and the resources the ARM deployment engine the CLI carries expands it
 * into (`bicep snapshot`: modules, loops and conditions evaluated offline) with the parameters below.
 *
 * Without the .NET SDK the tests that need it are skipped with the reason (`skipReason`), except
 * under CI=true, where they fail: a compile that did not run must not pass for one that did.
 */
export const cli: BicepCli = restoreBicep();

/** Why the compiled-template tests are skipped here, or undefined when they run (or must fail). */
export const skipReason: string | undefined = !cli.available && !inCi() ? `skipped: ${cli.reason}; the compiled-template tests need the Bicep CLI (npm run infra:build says the same)` : undefined;

/** Values no setting, log or template may carry in the clear; the deployment is given them. */
export const CANARY = {
  childSecretPepper: 'canary-pepper-5b1f0c7e4d2a49e8b3c6f1a0d9e8c7b6',
  onCallWebhookUrl: 'https://hooks.example.com/services/canary-webhook-token-3f9a',
} as const;

/** The deployment's scope (a what-if or `azd up` fills in the real ones). */
export const SCOPE = {
  subscriptionId: '00000000-0000-0000-0000-00000000c0de',
  tenantId: '00000000-0000-0000-0000-0000000a11ce',
  location: 'westeurope',
} as const;

/** The parameters of the snapshot: every required one, the secrets as canaries, defaults otherwise. */
export const PARAMETERS = {
  environmentName: 'ci',
  location: SCOPE.location,
  idpIssuer: 'https://login.example.com/',
  idpAudience: 'api://community-platform',
  idpJwksUri: 'https://login.example.com/discovery/keys',
  consentTermsVersion: '2025-06',
  sqlAdminGroupName: 'sql-admins',
  sqlAdminGroupObjectId: '11111111-2222-3333-4444-555555555555',
  ownerName: 'Platform Owner',
  ownerPhoneNumber: '5555550100',
  ownerPushEmail: 'owner@example.com',
  digestEmailAddresses: 'ops@example.com, digest@example.com',
  budgetStartDate: '2026-01-01',
  childSecretPepper: CANARY.childSecretPepper,
  // The steady state: the Expo token is in Key Vault already. (Passing the token itself would make the
  // app's settings depend on a secure value, which the engine leaves unevaluated.)
  expoAccessTokenConfigured: true,
  onCallWebhookUrl: CANARY.onCallWebhookUrl,
} as const;

/** The names main.bicep gives: `cp-<environment>` before every resource. */
export const NAME_PREFIX = `cp-${PARAMETERS.environmentName}`;

/** A compiled ARM template: what the tests read of it. */
export interface ArmTemplate {
  readonly $schema: string;
  readonly parameters: Record<string, { type: string; defaultValue?: unknown; allowedValues?: unknown[]; minValue?: number; maxValue?: number }>;
  readonly [key: string]: unknown;
}

export interface CompiledDeployment {
  readonly template: ArmTemplate;
  readonly resources: readonly PredictedResource[];
}

/** Compiles infra/main.bicep as it is now (in a folder of its own) and takes the snapshot. */
export function compileDeployment(): CompiledDeployment {
  if (!cli.available) throw new Error(`the Bicep CLI is needed here (CI=true): ${cli.reason}`);
  const folder = mkdtempSync(path.join(ROOT, '.tools', 'compiled-'));
  try {
    const file = path.join(folder, 'main.json');
    const build = buildMain(cli.bicep, file);
    if (!build.ok) throw new Error(`infra/main.bicep does not compile:\n${build.diagnostics.map(formatDiagnostic).join('\n')}`);
    const template = JSON.parse(readFileSync(file, 'utf8')) as ArmTemplate;
    return { template, resources: snapshotTemplate(cli.bicep, file, PARAMETERS, SCOPE) };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The one resource of a type and name; fails the test naming what there is instead. */
export function resourceNamed(resources: readonly PredictedResource[], type: string, name: string): PredictedResource {
  const found = resources.filter((resource) => resource.type === type && resource.name === name);
  if (found.length !== 1) {
    const names = resources.filter((resource) => resource.type === type).map((resource) => resource.name);
    throw new Error(`expected one ${type} named ${name}, found ${found.length} (there are: ${names.join(', ') || 'none'})`);
  }
  return found[0] as PredictedResource;
}

/** The resources of a type. */
export function resourcesOfType(resources: readonly PredictedResource[], type: string): PredictedResource[] {
  return resources.filter((resource) => resource.type === type);
}
