import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from './json-syntax-error';

const ROOT = path.resolve(__dirname, '..');
const JSON_SUITE = path.join(ROOT, 'test/testdata/json-test-suite/test_parsing');

describe('findJsonSyntaxError', () => {
  it('points at the line and column of a hand-edited settings file’s usual mistakes', () => {
    expect(findJsonSyntaxError('{\n  "Values": {\n    "PORT": "7072",\n  }\n}\n')).toEqual({ line: 3, column: 19, problem: 'a comma before "}" is not allowed' });
    expect(findJsonSyntaxError('{\n  "Values": {\n    "A": "1"\n    "B": "2"\n  }\n}')).toEqual({ line: 4, column: 5, problem: 'expected "," or "}" after the property value' });
    expect(findJsonSyntaxError("{ 'Values': {} }")).toEqual({ line: 1, column: 3, problem: 'expected a property name in double quotes' });
    expect(findJsonSyntaxError('[1, 2,]')).toEqual({ line: 1, column: 6, problem: 'a comma before "]" is not allowed' });
    expect(findJsonSyntaxError('{"a": "b}')?.line).toBe(1);
    expect(findJsonSyntaxError('{"a": 1')).toEqual({ line: 1, column: 8, problem: 'expected "," or "}" after the property value' });
    expect(findJsonSyntaxError('')).toEqual({ line: 1, column: 1, problem: 'expected a value, found the end of the file' });
    expect(findJsonSyntaxError('{} x')).toEqual({ line: 1, column: 4, problem: 'expected the end of the file after the value' });
  });

  it('finds nothing wrong in valid JSON: the project’s own JSON files and the example settings', () => {
    for (const file of ['package.json', 'local.settings.example.json', 'host.json', 'docs/openapi.json', 'tsconfig.json']) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      expect(() => JSON.parse(text), file).not.toThrow();
      expect(findJsonSyntaxError(text), file).toBeUndefined();
    }
    expect(findJsonSyntaxError(' {"a": [1, -2.5e3, true, false, null, "\\u00e9\\n", {}], "b": []} ')).toBeUndefined();
  });

  it('finds an error in every JSONTestSuite text JSON.parse rejects (the n_ cases)', () => {
    const files = readdirSync(JSON_SUITE).filter((name) => name.startsWith('n_'));
    expect(files.length).toBeGreaterThan(150);
    for (const file of files) {
      const text = readFileSync(path.join(JSON_SUITE, file), 'utf8');
      let rejected = false;
      try {
        JSON.parse(text);
      } catch {
        rejected = true;
      }
      if (!rejected) continue;
      let found;
      try {
        found = findJsonSyntaxError(text);
      } catch (error) {
        // Nested tens of thousands deep: the recursive scan gives up; the caller then names the file only.
        expect(error, file).toBeInstanceOf(RangeError);
        continue;
      }
      expect(found, file).toBeDefined();
    }
  });
});
