import Ajv2019 from 'ajv/dist/2019';
import draft7MetaSchema from 'ajv/dist/refs/json-schema-draft-07.json';
import addFormats from 'ajv-formats';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { ROOT } from './alert-catalogue';

/**
 * azure.yaml against the JSON schema azd publishes for it, vendored under test/infra/vendor/azure-dev/
 * (SOURCE.md names the commit): the file `azd up` reads first.
 */
const VENDOR = path.join(ROOT, 'test/infra/vendor/azure-dev');
/** Where the schemas are published: their `$id`s, and the base of their references. */
const PUBLISHED = 'https://raw.githubusercontent.com/Azure/azure-dev/main/';

function azureYamlValidator() {
  // The main schema is draft 2019-09; the extension schemas it references are draft-07.
  const ajv = new Ajv2019({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addMetaSchema(draft7MetaSchema);
  for (const file of globSync('**/*.json', { cwd: VENDOR })) {
    const schema = JSON.parse(readFileSync(path.join(VENDOR, file), 'utf8')) as { $id?: string };
    ajv.addSchema({ ...schema, $id: schema.$id ?? `${PUBLISHED}${file}` });
  }
  const validate = ajv.getSchema(`${PUBLISHED}schemas/v1.0/azure.yaml.json`);
  if (!validate) throw new Error('the vendored azure.yaml schema did not load');
  return validate;
}

const validate = azureYamlValidator();
const azureYaml = readFileSync(path.join(ROOT, 'azure.yaml'), 'utf8');
const errorsOf = (document: unknown): unknown[] => (validate(document) ? [] : (validate.errors ?? ['invalid']));

describe('azure.yaml, against azd\'s published schema', () => {
  it('names that schema in its yaml-language-server comment', () => {
    expect(azureYaml.split('\n')[0]).toBe(`# yaml-language-server: $schema=${PUBLISHED}schemas/v1.0/azure.yaml.json`);
  });

  it('is valid', () => {
    expect(errorsOf(YAML.parse(azureYaml))).toEqual([]);
  });

  it('would fail a name azd refuses, an unknown hook shell or a misspelt hook key (the check can fail)', () => {
    interface Document {
      name: string;
      hooks: { postprovision: { posix: Record<string, unknown> } };
    }
    const broken = (change: (document: Document) => void): Document => {
      const document = YAML.parse(azureYaml) as Document;
      change(document);
      return document;
    };
    expect(errorsOf(broken((document) => (document.name = 'Community Platform')))).not.toEqual([]);
    expect(errorsOf(broken((document) => (document.hooks.postprovision.posix.shell = 'cmd')))).not.toEqual([]);
    expect(errorsOf(broken((document) => (document.hooks.postprovision.posix.runs = document.hooks.postprovision.posix.run)))).not.toEqual([]);
  });
});
