import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Language, Parser, type Node } from 'web-tree-sitter';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './alert-catalogue';

/**
 * Issue 15, point 6, the offline half: every `.bicep` file under infra/ parses with the Bicep
 * grammar of tree-sitter-bicep (its WebAssembly build, run by web-tree-sitter: no native build, no
 * Bicep CLI), and every resource type and API version it declares is one of
 * `infra/resource-types.json`, each verified against Azure/bicep-types-az. Compiling, linting and
 * what-if need the real Bicep CLI and run in `.github/workflows/infra.yml`.
 */
const INFRA = path.join(ROOT, 'infra');

function bicepFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return bicepFiles(full);
    return name.endsWith('.bicep') ? [full] : [];
  });
}

let parser: Parser;

beforeAll(async () => {
  await Parser.init();
  const wasm = createRequire(__filename).resolve('tree-sitter-bicep/tree-sitter-bicep.wasm');
  parser = new Parser();
  parser.setLanguage(await Language.load(readFileSync(wasm)));
});

function parse(text: string): Node {
  const tree = parser.parse(text);
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree.rootNode;
}

/** Where a text does not parse: `line:column` of each error or missing node. */
function syntaxErrors(root: Node): string[] {
  const found: string[] = [];
  const walk = (node: Node): void => {
    if (node.isError || node.isMissing) {
      found.push(`${node.startPosition.row + 1}:${node.startPosition.column + 1} ${node.isMissing ? `missing ${node.type}` : `unexpected "${node.text.slice(0, 40)}"`}`);
    }
    for (const child of node.children) if (child) walk(child);
  };
  if (root.hasError) walk(root);
  return found;
}

/** The `'Type@version'` of every resource declaration in a parse tree. */
function declaredTypes(root: Node): string[] {
  return root.descendantsOfType('resource_declaration').flatMap((declaration) => {
    const type = declaration?.children.find((child) => child?.type === 'string')?.descendantsOfType('string_content')[0]?.text;
    return type ? [type] : [];
  });
}

const files = bicepFiles(INFRA);
const known = (JSON.parse(readFileSync(path.join(INFRA, 'resource-types.json'), 'utf8')) as { types: Record<string, string> }).types;

describe('the Bicep under infra/, parsed with the tree-sitter Bicep grammar', () => {
  it('finds main.bicep and its modules', () => {
    expect(files.map((file) => path.relative(INFRA, file))).toContain('main.bicep');
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  it('parses every file without a syntax error', () => {
    const broken = files.map((file) => ({ file: path.relative(ROOT, file), errors: syntaxErrors(parse(readFileSync(file, 'utf8'))) }));
    expect(broken.filter((result) => result.errors.length > 0)).toEqual([]);
  });

  it('would catch a file that does not parse (the check can fail)', () => {
    expect(syntaxErrors(parse("resource x 'Microsoft.Storage/storageAccounts@2023-05-01' = {\n  name: 'x'\n  properties: {\n}\n"))).not.toEqual([]);
    expect(syntaxErrors(parse("param name string = \n"))).not.toEqual([]);
    expect(syntaxErrors(parse("var x = [for i in range(0, 3): i\n"))).not.toEqual([]);
  });

  it('declares only resource types and API versions that exist (infra/resource-types.json)', () => {
    const declared = files.flatMap((file) => declaredTypes(parse(readFileSync(file, 'utf8'))).map((type) => ({ file: path.relative(ROOT, file), type })));
    expect(declared.length).toBeGreaterThanOrEqual(30);
    expect(declared.filter(({ type }) => !(type in known))).toEqual([]);
    // Every entry of the list is in use, so it stays the list of what this project deploys.
    const used = new Set(declared.map(({ type }) => type));
    expect(Object.keys(known).filter((type) => !used.has(type))).toEqual([]);
    for (const [type, source] of Object.entries(known)) {
      const [name = '', version = ''] = type.split('@');
      expect(source.toLowerCase(), type).toContain(`/${name.split('/')[0]?.toLowerCase()}/${version}/types.md`);
    }
  });

  it('would catch a made-up type or API version (the check can fail)', () => {
    const types = declaredTypes(parse("resource a 'Microsoft.Storage/storageAccounts@2099-01-01' = {\n  name: 'a'\n}\nresource b 'Microsoft.Insights/scheduledQueryRule@2023-12-01' existing = {\n  name: 'b'\n}\n"));
    expect(types).toEqual(['Microsoft.Storage/storageAccounts@2099-01-01', 'Microsoft.Insights/scheduledQueryRule@2023-12-01']);
    expect(types.filter((type) => !(type in known))).toEqual(types);
  });
});
