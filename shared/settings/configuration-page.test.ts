import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { configurationPage } from './configuration-page';
import { NUMBERED_FIELDS } from './provider-settings';
import { SETTINGS, type SettingDeclaration } from './setting-declarations';

const root = path.resolve(__dirname, '../..');
const declarations = Object.entries(SETTINGS) as [string, SettingDeclaration][];

/** Settings of the Functions host itself, which the app does not read. */
const HOST_ONLY = new Set(['FUNCTIONS_WORKER_RUNTIME']);

describe('the settings declarations and what is generated from them', () => {
  it('docs/configuration.md is the page the declarations generate (npm run docs:config writes it)', () => {
    expect(readFileSync(path.join(root, 'docs/configuration.md'), 'utf8')).toBe(configurationPage());
  });

  it('documents every setting the configuration accepts, the numbered provider settings included', () => {
    const page = configurationPage();
    for (const [name, declaration] of declarations) {
      expect(page).toContain(`| \`${name}\` |`);
      expect(declaration.doc.trim()).not.toBe('');
      expect(declaration.doc).not.toContain('\n');
    }
    for (const field of Object.keys(NUMBERED_FIELDS)) expect(page).toContain(`__${field}\``);
  });

  it('every declared default is a value its own schema accepts', () => {
    expect(() => loadConfig({})).not.toThrow();
    expect(() => loadConfig({ APP_ENV: 'test' })).not.toThrow();
  });

  it('local.settings.example.json holds declared settings only, each at its declared example or default', () => {
    const example = JSON.parse(readFileSync(path.join(root, 'local.settings.example.json'), 'utf8')) as { Values: Record<string, string> };
    const declared = new Map(declarations);
    for (const [name, value] of Object.entries(example.Values)) {
      if (HOST_ONLY.has(name)) continue;
      const declaration = declared.get(name);
      expect(declaration, `${name} is not a declared setting`).toBeDefined();
      const expected = declaration?.example ?? declaration?.default ?? '';
      expect(value, name).toBe(expected);
    }
    expect(() => loadConfig(example.Values)).not.toThrow();
  });
});
