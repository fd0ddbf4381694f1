import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasNodeRuntimeFlags, NODE_RUNTIME_ARGUMENTS } from '../../shared/lifecycle/node-runtime-flags';

const ROOT = path.resolve(__dirname, '../..');

describe("the app's Node flags", () => {
  it('are the Functions host\'s Node worker arguments in the deployed app settings', () => {
    const bicep = readFileSync(path.join(ROOT, 'infra/modules/function-app.bicep'), 'utf8');
    const setting = /^\s*languageWorkers__node__arguments: '([^']*)'$/m.exec(bicep);
    expect(setting?.[1]).toBe(NODE_RUNTIME_ARGUMENTS);
  });

  it('are the flags the tests run with, so the tests exercise the runtime production has', () => {
    expect(hasNodeRuntimeFlags()).toBe(true);
    expect(hasNodeRuntimeFlags([])).toBe(false);
  });
});
