import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DELIVERY_RESULTS } from '../../shared/notifications/ledger/delivery-ledger';
import { loadAlerts, loadWorkbookQueries, queryText, ROOT } from './alert-catalogue';
import { eventGridFunctions, sourceStringLiterals } from './code-names';

/**
 * Communication Services by identity and its delivery reports through Event Grid, read as text (no
 * Bicep CLI here): no access key is read, stored or handed to the app; the app's identity holds the
 * sending role; the system topic exists; the post-provision hooks subscribe the function the code
 * registers to the event types the code handles, with the same delivery settings in both shells.
 */
const read = (relative: string): string => readFileSync(path.join(ROOT, relative), 'utf8');

function bicepFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return bicepFiles(full);
    return name.endsWith('.bicep') ? [full] : [];
  });
}

const mainBicep = read('infra/main.bicep');
const communication = read('infra/modules/communication.bicep');
const functionApp = read('infra/modules/function-app.bicep');
const hookSh = read('infra/hooks/postprovision.sh');
const hookPs1 = read('infra/hooks/postprovision.ps1');
const hooks = { 'postprovision.sh': hookSh, 'postprovision.ps1': hookPs1 };

/** Communication and Email Service Owner (learn.microsoft.com, ACS "Set up SMTP authentication"). */
const COMMUNICATION_AND_EMAIL_SERVICE_OWNER = '09976791-48a7-449e-bb21-39d1a415f350';
const EVENT_TYPES = [
  'Microsoft.Communication.SMSDeliveryReportReceived',
  'Microsoft.Communication.SMSReceived',
  'Microsoft.Communication.EmailDeliveryReportReceived',
];

/** The `resource name 'type@version' ... = { ... }` block of a Bicep file (up to its closing brace at column 0). */
function resourceBlock(text: string, symbol: string): string {
  return new RegExp(`^resource ${symbol} '[^']+'[^\\n]*\\{[\\s\\S]*?\\n\\}`, 'm').exec(text)?.[0] ?? '';
}

describe('Communication Services without keys (infra/)', () => {
  it('reads no key of any resource and writes no ACS connection string, in any Bicep file', () => {
    for (const file of bicepFiles(path.join(ROOT, 'infra'))) {
      const text = readFileSync(file, 'utf8');
      const where = path.relative(ROOT, file);
      expect(text, where).not.toMatch(/\.listKeys\(/);
      expect(text, where).not.toContain('acs-connection-string');
      expect(text, where).not.toContain('ACS_CONNECTION_STRING');
      expect(text, where).not.toMatch(/primaryConnectionString|primaryKey/);
    }
  });

  // What the deployed settings hold (the resource's https endpoint, the identity's client id) is read from
  // the compiled template in compiled-template.test.ts; this is the condition they share.
  it('gives the app ACS_ENDPOINT under the same condition as the other ACS settings and the module itself', () => {
    expect(mainBicep).toContain("ACS_ENDPOINT: deployCommunicationServices ? communication!.outputs.endpoint : ''");
    expect(mainBicep).toContain("ACS_EMAIL_SENDER: deployCommunicationServices ? communication!.outputs.emailSender : ''");
    expect(mainBicep).toMatch(/^module communication 'modules\/communication\.bicep' = if \(deployCommunicationServices\)/m);
  });

  it('grants the app\'s identity Communication and Email Service Owner on the Communication Services resource only', () => {
    expect(communication).toContain(`var communicationAndEmailServiceOwner = '${COMMUNICATION_AND_EMAIL_SERVICE_OWNER}'`);
    const grant = resourceBlock(communication, 'appSends');
    expect(grant).toContain("'Microsoft.Authorization/roleAssignments@");
    expect(grant).toContain('scope: communication\n');
    expect(grant).toContain('principalId: principalId');
    expect(grant).toContain("subscriptionResourceId('Microsoft.Authorization/roleDefinitions', communicationAndEmailServiceOwner)");
    expect(/module communication [\s\S]*?\n\}/.exec(mainBicep)?.[0]).toContain('principalId: identity.outputs.principalId');
  });

  it('keeps host keys where every replica and revision finds them (not on the replica\'s own file system)', () => {
    expect(functionApp).toContain("AzureWebJobsSecretStorageType: 'blob'");
    expect(functionApp).not.toMatch(/AzureWebJobsSecretStorageType: 'files'/);
    expect(functionApp).toMatch(/AzureFunctionsWebHost__hostid: /);
  });
});

describe('Communication Services delivery reports through Event Grid', () => {
  it('has a global system topic on the Communication Services resource, with an identity to dead-letter with', () => {
    const topic = resourceBlock(communication, 'systemTopic');
    expect(topic).toContain("'Microsoft.EventGrid/systemTopics@");
    expect(topic).toContain("location: 'global'");
    expect(topic).toContain('source: communication.id');
    expect(topic).toContain("topicType: 'Microsoft.Communication.CommunicationServices'");
    expect(topic).toContain("type: 'SystemAssigned'");
    const writer = resourceBlock(communication, 'deadLetterWriter');
    expect(writer).toContain('scope: deadLetterContainer');
    expect(writer).toContain('principalId: systemTopic.identity.principalId');
    expect(read('infra/modules/storage.bicep')).toContain("'Microsoft.Storage/storageAccounts/blobServices/containers@");
  });

  it('subscribes, in both hooks, the Event Grid function the code registers, through the host\'s webhook', () => {
    const registered = eventGridFunctions();
    expect(registered).toContain('communication-events');
    for (const [name, text] of Object.entries(hooks)) {
      expect(text, name).toMatch(/function_?[nN]ame\s*=\s*'?communication-events'?/);
      expect(text, name).toContain('/runtime/webhooks/eventgrid?functionName=$');
      expect(text, name).toContain('&code=$');
      expect(text, name).toMatch(/systemKey[\s\S]*eventgrid_extension/);
    }
  });

  it('filters, in both hooks, exactly the event types the code handles', () => {
    const literals = sourceStringLiterals();
    for (const type of EVENT_TYPES) expect(literals.has(type), `${type} is handled in shared/ or functions/`).toBe(true);
    for (const [name, text] of Object.entries(hooks)) {
      const found = [...text.matchAll(/['"](Microsoft\.Communication\.[A-Za-z]+)['"]/g)].map((m) => m[1]);
      expect(new Set(found), name).toEqual(new Set(EVENT_TYPES));
    }
  });

  it('delivers in the Event Grid schema with the same retry policy and dead-letter destination in both hooks', () => {
    expect(hookSh).toContain('"eventDeliverySchema": "EventGridSchema"');
    expect(hookPs1).toContain("eventDeliverySchema = 'EventGridSchema'");
    expect(hookSh).toMatch(/"maxDeliveryAttempts": 30,\s*"eventTimeToLiveInMinutes": 1440/);
    expect(hookPs1).toContain('maxDeliveryAttempts = 30; eventTimeToLiveInMinutes = 1440');
    for (const [name, text] of Object.entries(hooks)) {
      expect(text, name).toContain('deadLetterWithResourceIdentity');
      expect(text, name).toContain('StorageBlob');
      // Nothing prints the key.
      expect(text, name).not.toMatch(/(echo|Write-Host)[^\n]*\$key/);
    }
  });

  it('reads in the hooks only azd variables that main.bicep outputs', () => {
    const outputs = new Set([...mainBicep.matchAll(/^output (\w+) /gm)].map((m) => m[1]));
    const used = new Set([
      ...[...hookSh.matchAll(/\$\{((?:AZURE|SERVICE)_[A-Z0-9_]+)/g)].map((m) => m[1]),
      ...[...hookPs1.matchAll(/\$env:((?:AZURE|SERVICE)_[A-Z0-9_]+)/g)].map((m) => m[1]),
    ]);
    used.delete('AZURE_EXTENSION_USE_DYNAMIC_INSTALL'); // the Azure CLI's own setting, set by the hooks
    expect(used.size).toBeGreaterThan(5);
    expect([...used].filter((name) => !outputs.has(name ?? ''))).toEqual([]);
  });
});

describe('notification delivery rates over final results', () => {
  /** Results that are not final (`accepted`: the delivery report is still to come) or not a send at all. */
  const NOT_COUNTED = ['accepted', 'opted_out', 'budget_exceeded'];
  const list = (text: string | undefined): string[] => [...(text ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1] ?? '');

  it('computes the SMS failure share over final results: (failed + provider_error) / (delivered + failed + provider_error + success)', () => {
    const alert = loadAlerts().find((entry) => entry.name === 'sms-failure-rate-elevated');
    const text = alert ? queryText(alert) : '';
    const finals = list(/\| where result in \(([^)]*)\)/.exec(text)?.[1]);
    const failures = list(/failures = countif\(result in \(([^)]*)\)\)/.exec(text)?.[1]);
    expect(new Set(finals)).toEqual(new Set(['delivered', 'failed', 'provider_error', 'success']));
    expect(new Set(failures)).toEqual(new Set(['failed', 'provider_error']));
    expect(text).toMatch(/errorRatePercent = iff\(outcomeUnknown > 0, 100\.0, 100\.0 \* failures \/ finalResults\)/);
    for (const result of [...finals, ...NOT_COUNTED]) expect(DELIVERY_RESULTS as readonly string[]).toContain(result);
    expect(finals.filter((result) => NOT_COUNTED.includes(result))).toEqual([]);
  });

  it('fires on any SMS a fan-out batch left with an unknown outcome, whatever the failure share', () => {
    const alert = loadAlerts().find((entry) => entry.name === 'sms-failure-rate-elevated');
    const text = alert ? queryText(alert) : '';
    expect(text).toContain('Name in ("notification.delivery", "notification.outcome_unknown")');
    expect(text).toMatch(/outcomeUnknown = sum\(unknownInEvent\)/);
    expect(text).toMatch(/\| where finalResults > 0 or outcomeUnknown > 0/);
    // Above the threshold whenever one is left.
    expect(alert?.threshold).toBeTypeOf('number');
    expect(100).toBeGreaterThan(Number(alert?.threshold));
  });

  it('computes the workbook\'s delivery rate per channel as delivered + success among final results', () => {
    const tile = loadWorkbookQueries().find((query) => query.where.includes('(delivery-rate)'));
    const text = tile?.text ?? '';
    expect(new Set(list(/\| where result !in \(([^)]*)\)/.exec(text)?.[1]))).toEqual(new Set(NOT_COUNTED));
    expect(new Set(list(/countif\(result in \(([^)]*)\)\)/.exec(text)?.[1]))).toEqual(new Set(['delivered', 'success']));
    expect(text).toMatch(/by bin\(TimeGenerated, 15m\), channel$/);
  });
});
