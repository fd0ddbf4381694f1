import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveSettingExpressions, storageConnectionString } from './app-settings';
import { applySettings, LocalSettingsError, readLocalSettings } from './local-settings';

const dirs: string[] = [];
function appWith(localSettings?: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'local-settings-'));
  dirs.push(dir);
  if (localSettings !== undefined) writeFileSync(path.join(dir, 'local.settings.json'), localSettings);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('local.settings.json', () => {
  it('yields the Values as strings, and nothing when the file is missing', () => {
    const dir = appWith(JSON.stringify({ IsEncrypted: false, Values: { APP_ENV: 'development', PORT: 7072, FLAG: true, NESTED: { no: 1 } } }));
    expect(readLocalSettings(dir)).toEqual({ APP_ENV: 'development', PORT: '7072', FLAG: 'true' });
    expect(readLocalSettings(appWith())).toEqual({});
  });

  it('refuses an encrypted or unreadable file with a message that names it', () => {
    expect(() => readLocalSettings(appWith(JSON.stringify({ IsEncrypted: true, Values: {} })))).toThrow(/encrypted/);
    expect(() => readLocalSettings(appWith('{ not json'))).toThrow(/^local\.settings\.json line 1, column 3: not valid JSON/);
  });

  it('names the line and column of a syntax error, and never quotes the file (it holds secrets)', () => {
    const secret = 'AccountKey=canary-secret-8f2a';
    const broken = `{\n  "IsEncrypted": false,\n  "Values": {\n    "AzureWebJobsStorage": "${secret}",\n  }\n}\n`;
    let thrown: unknown;
    try {
      readLocalSettings(appWith(broken));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LocalSettingsError);
    expect((thrown as Error).message).toBe('local.settings.json line 4, column 59: not valid JSON: a comma before "}" is not allowed.');
    expect((thrown as Error).message).not.toContain('canary');
    // A byte order mark, as some editors save, is not an error.
    expect(readLocalSettings(appWith('\uFEFF{"Values": {"PORT": 7072}}'))).toEqual({ PORT: '7072' });
  });

  it('never overrides a variable already set in the environment', () => {
    const env: NodeJS.ProcessEnv = { PORT: '9000' };
    expect(applySettings({ PORT: '7071', LOG_LEVEL: 'debug' }, env)).toEqual(['LOG_LEVEL']);
    expect(env).toEqual({ PORT: '9000', LOG_LEVEL: 'debug' });
  });
});

describe('app settings for bindings', () => {
  it('resolves %Name% expressions and refuses unset ones', () => {
    expect(resolveSettingExpressions('%QUEUE%-items', { QUEUE: 'notifications' })).toBe('notifications-items');
    expect(() => resolveSettingExpressions('%MISSING%', {})).toThrow(/MISSING/);
  });

  it('finds a connection by its name, then AzureWebJobs<name>; the default comes from config', () => {
    expect(storageConnectionString(undefined, {}, 'UseDevelopmentStorage=true')).toEqual({ name: 'AzureWebJobsStorage', value: 'UseDevelopmentStorage=true' });
    expect(storageConnectionString('Other', { Other: 'a' }, 'd').value).toBe('a');
    expect(storageConnectionString('Other', { AzureWebJobsOther: 'b' }, 'd').value).toBe('b');
    expect(storageConnectionString('Other', {}, 'd').value).toBeUndefined();
  });
});
