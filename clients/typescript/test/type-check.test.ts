import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The client as its users compile it: tsc over tsconfig.json here (strict, noUncheckedIndexedAccess,
 * exactOptionalPropertyTypes, no Node types), which holds the sources and test/types/walk-through.ts
 * (the walk-through without a cast, and `@ts-expect-error` on the bodies the server refuses); and a
 * file with such a body and no directive, which must not compile.
 */
const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const TSC = path.resolve(PACKAGE, '../../node_modules/typescript/bin/tsc');
const workDir = mkdtempSync(path.join(tmpdir(), 'api-client-types-'));

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

async function tsc(project: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [TSC, '-p', project, '--pretty', 'false']);
    return { code: 0, output: stdout };
  } catch (error) {
    const { code, stdout } = error as { code?: number; stdout?: string };
    return { code: code ?? 1, output: stdout ?? String(error) };
  }
}

describe("the client's types", () => {
  it('compile strictly, the walk-through without a cast, and refuse a body with both pin and password', async () => {
    const both = path.join(workDir, 'both.ts');
    writeFileSync(
      both,
      [
        `import { createApiClient } from ${JSON.stringify(path.join(PACKAGE, 'src/index'))};`,
        "const api = createApiClient({ baseUrl: 'http://localhost:7071' });",
        "void api.POST('/api/v1/auth/child-session', { body: { username: 'river', pin: '408215', password: 'a long passphrase' } });",
        '',
      ].join('\n'),
    );
    const project = path.join(workDir, 'tsconfig.json');
    writeFileSync(project, JSON.stringify({ extends: path.join(PACKAGE, 'tsconfig.json'), include: [], files: [both] }));
    const [own, refused] = await Promise.all([tsc(path.join(PACKAGE, 'tsconfig.json')), tsc(project)]);
    expect(own).toEqual({ code: 0, output: '' });
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/both\.ts\(3,\d+\): error TS2\d{3}:/);
    expect(refused.output.trim().split('\n').filter((line) => line.includes('error TS'))).toHaveLength(1);
    // Two compiles of the client and openapi-fetch's types: about 3 s of CPU each, more on a busy machine.
  }, 120_000);
});
