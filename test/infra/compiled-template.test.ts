import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PredictedResource } from '../../scripts/bicep-cli';
import { scrubSecrets } from '../../shared/logging/scrub';
import { loadAlerts, loadWorkspaceFunctions, queryText, ROOT, type AlertEntry } from './alert-catalogue';
import { CANARY, cli, compileDeployment, NAME_PREFIX, PARAMETERS, resourceNamed, resourcesOfType, skipReason, type CompiledDeployment } from './compiled-template';
import { specAlertRows } from './spec-tables';
import { NODE_RUNTIME_ARGUMENTS } from '../../shared/lifecycle/node-runtime-flags';

/**
 * What `azd up` would deploy, read from the COMPILED template of infra/main.bicep (the real Bicep
 * CLI) as the ARM deployment engine expands it (`bicep snapshot`, offline), not from the Bicep text:
 * every alert of the catalogue (infra/alerts/, which holds the spec's section 8) is a resource with
 * its query or metric, frequency, window, threshold, severity and action group; the action groups
 * route as the spec says; the app's secrets are Key Vault references; logs are kept 30 days and
 * exported to cold storage; the azd parameter file fits the template's parameters.
 */
if (skipReason) console.warn(`test/infra/compiled-template.test.ts: ${skipReason}`);

const LOG_ALERT = 'Microsoft.Insights/scheduledQueryRules';
const METRIC_ALERT = 'Microsoft.Insights/metricAlerts';
const BUDGET = 'Microsoft.Consumption/budgets';
const ALERT_TYPES = { log: LOG_ALERT, metric: METRIC_ALERT, budget: BUDGET } as const;

const alerts = loadAlerts();
const appLogLines = loadWorkspaceFunctions().get('AppLogLines') ?? '';

let deployment: CompiledDeployment;
let resources: readonly PredictedResource[];

/** A property path of a resource, for readable expectations. */
function at(resource: PredictedResource | undefined, ...keys: (string | number)[]): unknown {
  let value: unknown = resource;
  for (const key of keys) value = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>)[key] : undefined;
  return value;
}

function actionGroupId(group: AlertEntry['actionGroup']): string {
  return resourceNamed(resources, 'Microsoft.Insights/actionGroups', `${NAME_PREFIX}-${group}`).id;
}

function alertResource(alert: AlertEntry): PredictedResource {
  return resourceNamed(resources, ALERT_TYPES[alert.kind], `${NAME_PREFIX}-${alert.name}`);
}

describe.skipIf(!cli.available)(`the compiled template of infra/main.bicep (Bicep CLI ${cli.available ? cli.version : ''})`, () => {
  beforeAll(() => {
    deployment = compileDeployment();
    resources = deployment.resources;
  }, 120_000);

  describe('alerts', () => {
    it('deploys every alert of the catalogue once, and no alert the catalogue does not have', () => {
      expect(alerts.length).toBeGreaterThanOrEqual(25);
      const deployed = [LOG_ALERT, METRIC_ALERT, BUDGET].flatMap((type) => resourcesOfType(resources, type).map((resource) => `${resource.type} ${resource.name}`));
      const expected = alerts.map((alert) => `${ALERT_TYPES[alert.kind]} ${NAME_PREFIX}-${alert.name}`);
      expect(deployed.sort()).toEqual(expected.sort());
    });

    it('implements every row of the spec\'s section 8 with deployed alerts: 5 critical, 6 warning, 8 infrastructure thresholds', () => {
      const rows = specAlertRows();
      const implemented = (row: (typeof rows)[number]): string[] =>
        alerts
          .filter((alert) => alert.implements.some((claim) => claim.table === row.table && claim.row === row.row))
          .filter((alert) => resourcesOfType(resources, ALERT_TYPES[alert.kind]).some((resource) => resource.name === `${NAME_PREFIX}-${alert.name}`))
          .map((alert) => alert.name);
      const counts = { critical: 0, warning: 0, infrastructure: 0 };
      for (const row of rows) {
        expect(implemented(row), `${row.table}: ${row.row}`).not.toEqual([]);
        counts[row.table] += 1;
      }
      expect(counts).toEqual({ critical: 5, warning: 6, infrastructure: 8 });
    });

    it('deploys the sign-in SLO burn-rate rules: availability and latency, two paging windows and one ticket each', () => {
      const burnRate = alerts.filter((alert) => alert.slo);
      expect(burnRate.map((alert) => alert.name).sort()).toEqual(
        ['availability', 'latency'].flatMap((slo) => ['fast-burn', 'slow-burn', 'budget-ticket'].map((kind) => `sign-in-${slo}-${kind}`)).sort(),
      );
      for (const alert of burnRate) expect(at(alertResource(alert), 'properties', 'windowSize'), alert.name).toBe(alert.slo?.longWindow);
    });

    for (const alert of alerts.filter((entry) => entry.kind === 'log')) {
      it(`log alert ${alert.name}: its query, every ${alert.frequency} over ${alert.window}, ${alert.operator} ${alert.threshold}, severity ${alert.severity}, to ${alert.actionGroup}`, () => {
        const resource = alertResource(alert);
        const criterion = at(resource, 'properties', 'criteria', 'allOf', 0) as Record<string, unknown>;
        expect(at(resource, 'kind')).toBe('LogAlert');
        expect(at(resource, 'properties', 'scopes')).toEqual([resourceNamed(resources, 'Microsoft.OperationalInsights/workspaces', `log-${NAME_PREFIX}`).id]);
        // Deployed with the workspace function inlined; put back, it is the catalogue's query.
        expect(String(criterion.query).split(`(\n${appLogLines})`).join('AppLogLines')).toBe(queryText(alert));
        expect(at(resource, 'properties', 'evaluationFrequency')).toBe(alert.frequency);
        expect(at(resource, 'properties', 'windowSize')).toBe(alert.window);
        expect(criterion.operator).toBe(alert.operator);
        expect(criterion.threshold).toBe(alert.threshold);
        expect(criterion.timeAggregation).toBe(alert.timeAggregation);
        expect(criterion.metricMeasureColumn ?? undefined).toBe(alert.metricMeasureColumn);
        expect(criterion.failingPeriods).toEqual(alert.failingPeriods ?? { numberOfEvaluationPeriods: 1, minFailingPeriodsToAlert: 1 });
        expect(at(resource, 'properties', 'severity')).toBe(alert.severity);
        expect(at(resource, 'properties', 'enabled')).toBe(true);
        expect(at(resource, 'properties', 'actions', 'actionGroups')).toEqual([actionGroupId(alert.actionGroup)]);
      });
    }

    for (const alert of alerts.filter((entry) => entry.kind === 'metric')) {
      it(`metric alert ${alert.name}: ${alert.metricName} on its resource, every ${alert.frequency} over ${alert.window}, ${alert.operator} ${alert.threshold}, severity ${alert.severity}, to ${alert.actionGroup}`, () => {
        const resource = alertResource(alert);
        const criterion = at(resource, 'properties', 'criteria', 'allOf', 0) as Record<string, unknown>;
        const scopes = at(resource, 'properties', 'scopes') as string[];
        expect(scopes).toHaveLength(1);
        // The scope is a resource the deployment creates, of the type whose metric is read.
        const target = resources.find((candidate) => candidate.id === scopes[0]);
        expect(target?.type, `${scopes[0]}`).toBe(alert.metricNamespace);
        expect(criterion.metricNamespace).toBe(alert.metricNamespace);
        expect(criterion.metricName).toBe(alert.metricName);
        expect(criterion.timeAggregation).toBe(alert.aggregation);
        expect(criterion.operator).toBe(alert.operator);
        if (alert.threshold === 'dynamic') {
          expect(criterion.criterionType).toBe('DynamicThresholdCriterion');
          expect(criterion.alertSensitivity).toBe(alert.sensitivity);
          expect(criterion.failingPeriods).toEqual(alert.failingPeriods);
        } else {
          expect(criterion.criterionType).toBe('StaticThresholdCriterion');
          // A percentage of a budgeted capacity is deployed in the metric's unit (bytes of the default GiB).
          const base = alert.thresholdPercentOf === 'coldStorageCapacityGiB' ? (deployment.template.parameters.coldStorageCapacityGiB?.defaultValue as number) * 1024 ** 3 : undefined;
          expect(criterion.threshold).toBe(base === undefined ? alert.threshold : (base * alert.threshold) / 100);
        }
        expect(at(resource, 'properties', 'evaluationFrequency')).toBe(alert.frequency);
        expect(at(resource, 'properties', 'windowSize')).toBe(alert.window);
        expect(at(resource, 'properties', 'severity')).toBe(alert.severity);
        expect(at(resource, 'properties', 'enabled')).toBe(true);
        expect((at(resource, 'properties', 'actions') as { actionGroupId: string }[]).map((action) => action.actionGroupId)).toEqual([actionGroupId(alert.actionGroup)]);
      });
    }

    for (const alert of alerts.filter((entry) => entry.kind === 'budget')) {
      it(`budget ${alert.name}: ${alert.operator} ${alert.threshold}% of the expected monthly cost, ${alert.thresholdTypes?.join(' and ')}, to ${alert.actionGroup}`, () => {
        const resource = alertResource(alert);
        expect(at(resource, 'properties', 'amount')).toBe(deployment.template.parameters.expectedMonthlyCostUsd?.defaultValue);
        expect(at(resource, 'properties', 'timeGrain')).toBe('Monthly');
        const notifications = Object.values(at(resource, 'properties', 'notifications') as Record<string, Record<string, unknown>>);
        expect(notifications.map((notification) => notification.thresholdType).sort()).toEqual([...(alert.thresholdTypes ?? [])].sort());
        for (const notification of notifications) {
          expect(notification.operator).toBe(alert.operator);
          expect(notification.threshold).toBe(alert.threshold);
          expect(notification.contactGroups).toEqual([actionGroupId(alert.actionGroup)]);
        }
      });
    }
  });

  describe('action groups', () => {
    it('pages the owner by SMS, voice, push and the on-call webhook, and sends no e-mail', () => {
      const paging = resourceNamed(resources, 'Microsoft.Insights/actionGroups', `${NAME_PREFIX}-paging`);
      const phone = { countryCode: '1', phoneNumber: PARAMETERS.ownerPhoneNumber };
      expect(at(paging, 'properties', 'smsReceivers')).toEqual([expect.objectContaining(phone)]);
      expect(at(paging, 'properties', 'voiceReceivers')).toEqual([expect.objectContaining(phone)]);
      expect(at(paging, 'properties', 'azureAppPushReceivers')).toEqual([expect.objectContaining({ emailAddress: PARAMETERS.ownerPushEmail })]);
      // The webhook URL is a secure parameter: the engine leaves the receiver unevaluated rather than show it.
      expect(JSON.stringify(at(paging, 'properties', 'webhookReceivers'))).toContain("parameters('onCallWebhookUrl')");
      expect(at(paging, 'properties', 'emailReceivers') ?? []).toEqual([]);
    });

    it('sends the digest by e-mail to each address, and pages no one', () => {
      const digest = resourceNamed(resources, 'Microsoft.Insights/actionGroups', `${NAME_PREFIX}-digest`);
      const addresses = PARAMETERS.digestEmailAddresses.split(',').map((address) => address.trim());
      expect((at(digest, 'properties', 'emailReceivers') as { emailAddress: string }[]).map((receiver) => receiver.emailAddress)).toEqual(addresses);
      for (const receivers of ['smsReceivers', 'voiceReceivers', 'azureAppPushReceivers', 'webhookReceivers']) expect(at(digest, 'properties', receivers) ?? [], receivers).toEqual([]);
    });
  });

  describe('the function app\'s settings', () => {
    const SECRET_SETTINGS = ['CHILD_SECRET_PEPPER', 'APPLICATIONINSIGHTS_CONNECTION_STRING', 'EXPO_ACCESS_TOKEN'];

    function app(): PredictedResource {
      return resourceNamed(resources, 'Microsoft.App/containerApps', `ca-${NAME_PREFIX}-api`);
    }
    function env(): { name: string; value?: unknown; secretRef?: string }[] {
      return at(app(), 'properties', 'template', 'containers', 0, 'env') as { name: string; value?: unknown; secretRef?: string }[];
    }

    it('reads every secret from Key Vault with the app\'s identity: a container-app secret that is a Key Vault reference', () => {
      const secrets = at(app(), 'properties', 'configuration', 'secrets') as { name: string; keyVaultUrl?: string; identity?: string; value?: unknown }[];
      const vault = resourcesOfType(resources, 'Microsoft.KeyVault/vaults')[0];
      const identity = resourcesOfType(resources, 'Microsoft.ManagedIdentity/userAssignedIdentities')[0];
      for (const setting of SECRET_SETTINGS) {
        const entry = env().find((variable) => variable.name === setting);
        expect(entry, setting).toEqual({ name: setting, secretRef: expect.any(String) });
        const secret = secrets.find((candidate) => candidate.name === entry?.secretRef);
        expect(secret?.value, setting).toBeUndefined();
        expect(secret?.identity, setting).toBe(identity?.id);
        // `<vault uri>secrets/<name>`, the vault's URI read from the vault this deployment creates.
        expect(secret?.keyVaultUrl, setting).toContain(`reference('${vault?.id}'`);
        expect(secret?.keyVaultUrl, setting).toContain(`'${entry?.secretRef}'`);
        expect(resourcesOfType(resources, 'Microsoft.KeyVault/vaults/secrets').map((resource) => resource.name), setting).toContain(`${vault?.name}/${entry?.secretRef}`);
      }
    });

    it('holds no secret value: no canary, nothing that looks like a credential, no setting that looks secret given in the clear', () => {
      const text = JSON.stringify(resources);
      for (const canary of Object.values(CANARY)) expect(text.includes(canary), canary).toBe(false);
      const plain = env().filter((variable) => variable.secretRef === undefined);
      expect(plain.length).toBeGreaterThanOrEqual(20);
      for (const variable of plain) {
        const value = String(variable.value);
        expect(scrubSecrets(value), variable.name).toBe(value);
        expect(value, variable.name).not.toMatch(/AccountKey=|SharedAccessKey=|InstrumentationKey=|Password=|Pwd=/i);
        // The database connection string names the managed identity, no password (checked above).
        if (variable.name !== 'SQL_CONNECTION_STRING') expect(variable.name).not.toMatch(/SECRET|TOKEN|PASSWORD|PEPPER|KEY$|WEBHOOK|CONNECTION_STRING/);
      }
      // The secrets written to Key Vault come from secure parameters, which the engine never shows.
      for (const secret of resourcesOfType(resources, 'Microsoft.KeyVault/vaults/secrets')) expect(JSON.stringify(at(secret, 'properties', 'value')), secret.name).toMatch(/^"\[(parameters|reference)\(/);
    });

    it('reaches Communication Services and the SDKs by identity: ACS_ENDPOINT is the resource\'s https endpoint, AZURE_CLIENT_ID the identity\'s client id', () => {
      const acs = resourcesOfType(resources, 'Microsoft.Communication/communicationServices')[0];
      const identity = resourcesOfType(resources, 'Microsoft.ManagedIdentity/userAssignedIdentities')[0];
      const value = (name: string): unknown => env().find((variable) => variable.name === name)?.value;
      expect(value('ACS_ENDPOINT')).toBe(`[format('https://{0}', reference('${acs?.id}', '${acs?.apiVersion}').hostName)]`);
      expect(value('AZURE_CLIENT_ID')).toBe(`[reference('${identity?.id}', '${identity?.apiVersion}').clientId]`);
    });

    it("starts the app's Node worker with the app's Node flags", () => {
      expect(env().find((variable) => variable.name === 'languageWorkers__node__arguments')).toMatchObject({ value: NODE_RUNTIME_ARGUMENTS });
    });

    it('gives the app only settings it reads (local.settings.example.json lists them all)', () => {
      const known = new Set(Object.keys((JSON.parse(readFileSync(path.join(ROOT, 'local.settings.example.json'), 'utf8')) as { Values: object }).Values));
      const names = env().map((variable) => variable.name);
      expect(names).toEqual(expect.arrayContaining(SECRET_SETTINGS));
      // Besides: what the Functions host reads (its storage by identity, its keys, its id, the Node
      // worker's arguments) and the identity the Azure SDK's credential takes (AZURE_CLIENT_ID).
      const hostSettings = names.filter((name) => /^(AzureWebJobs|AzureFunctionsWebHost__|languageWorkers__)/.test(name) || name === 'AZURE_CLIENT_ID');
      expect(hostSettings.length).toBeGreaterThanOrEqual(5);
      expect(names.filter((name) => !known.has(name) && !hostSettings.includes(name))).toEqual([]);
    });
  });

  describe('logs', () => {
    it('keeps the workspace and Application Insights 30 days', () => {
      expect(deployment.template.parameters.logRetentionDays?.defaultValue).toBe(30);
      expect(at(resourcesOfType(resources, 'Microsoft.OperationalInsights/workspaces')[0], 'properties', 'retentionInDays')).toBe(30);
      expect(at(resourcesOfType(resources, 'Microsoft.Insights/components')[0], 'properties', 'RetentionInDays')).toBe(30);
    });

    it('exports the app\'s tables to the cold-storage account, whose lifecycle policy deletes them after its retention', () => {
      const exports = resourcesOfType(resources, 'Microsoft.OperationalInsights/workspaces/dataExports');
      expect(exports).toHaveLength(1);
      const destination = at(exports[0], 'properties', 'destination', 'resourceId');
      const coldStorage = resources.find((resource) => resource.id === destination);
      expect(coldStorage?.type).toBe('Microsoft.Storage/storageAccounts');
      expect(at(exports[0], 'properties', 'enable')).toBe(true);
      expect(at(exports[0], 'properties', 'tableNames')).toEqual(expect.arrayContaining(['ContainerAppConsoleLogs', 'AppRequests', 'AppEvents']));
      const policy = resourceNamed(resources, 'Microsoft.Storage/storageAccounts/managementPolicies', `${coldStorage?.name}/default`);
      const rules = at(policy, 'properties', 'policy', 'rules') as { definition: { actions: { baseBlob: { delete?: { daysAfterModificationGreaterThan: number } } } } }[];
      const retention = deployment.template.parameters.coldStorageRetentionDays?.defaultValue;
      expect(retention).toBeGreaterThan(30);
      expect(rules.map((rule) => rule.definition.actions.baseBlob.delete?.daysAfterModificationGreaterThan)).toEqual(rules.map(() => retention));
    });
  });

  describe('infra/main.parameters.json, against the compiled template\'s parameters', () => {
    const file = JSON.parse(readFileSync(path.join(ROOT, 'infra/main.parameters.json'), 'utf8')) as { parameters: Record<string, { value: unknown }> };
    /** `${VAR}` or `${VAR=default}`: azd substitutes the environment's value. */
    const AZD_REFERENCE = /^\$\{([A-Z][A-Z0-9_]*)(?:=([^}]*))?\}$/;

    it('gives a value or an azd environment reference for every required parameter', () => {
      const required = Object.entries(deployment.template.parameters).filter(([, parameter]) => !('defaultValue' in parameter)).map(([name]) => name);
      expect(required.length).toBeGreaterThanOrEqual(10);
      expect(required.filter((name) => !(name in file.parameters))).toEqual([]);
      for (const name of required) {
        const value = file.parameters[name]?.value;
        // A required parameter's reference has no default: a missing azd variable must stop the provision.
        expect(typeof value === 'string' && AZD_REFERENCE.test(value) ? AZD_REFERENCE.exec(value)?.[2] : 'not a reference', name).toBeUndefined();
      }
    });

    it('gives no value for a parameter the template does not have', () => {
      expect(Object.keys(file.parameters).filter((name) => !(name in deployment.template.parameters))).toEqual([]);
    });

    it('takes every value from the azd environment, and each default in it fits the parameter\'s type and limits', () => {
      for (const [name, { value }] of Object.entries(file.parameters)) {
        const match = typeof value === 'string' ? AZD_REFERENCE.exec(value) : null;
        expect(match, `${name}: ${JSON.stringify(value)}`).not.toBeNull();
        const fallback = match?.[2];
        const parameter = deployment.template.parameters[name];
        if (fallback === undefined || !parameter) continue;
        const type = parameter.type.toLowerCase();
        if (type === 'int') {
          expect(fallback, name).toMatch(/^-?\d+$/);
          if (parameter.minValue !== undefined) expect(Number(fallback), name).toBeGreaterThanOrEqual(parameter.minValue);
          if (parameter.maxValue !== undefined) expect(Number(fallback), name).toBeLessThanOrEqual(parameter.maxValue);
        } else if (type === 'bool') {
          expect(['true', 'false'], name).toContain(fallback);
        }
        if (parameter.allowedValues) expect(parameter.allowedValues.map(String), name).toContain(fallback);
        if (parameter.defaultValue !== undefined && typeof parameter.defaultValue !== 'object') expect(fallback, `${name}: the file's default is the template's`).toBe(String(parameter.defaultValue));
      }
    });
  });
});

describe.runIf(!cli.available && skipReason === undefined)('the compiled template of infra/main.bicep, under CI=true', () => {
  it('needs the Bicep CLI', () => {
    throw new Error(`CI=true and ${cli.available ? '' : cli.reason}: the compiled-template tests cannot run`);
  });
});
