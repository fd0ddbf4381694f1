import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module script of this package, without type declarations
import { SCHEMA_FILE, schemaSource } from '../scripts/generate-schema.mjs';

describe("the client's generated types", () => {
  it('are src/schema.ts as openapi-typescript writes it from docs/openapi.json (`npm run openapi` at the root after a change)', async () => {
    const generated = (await schemaSource()) as string;
    expect(generated).toContain('"/api/v1/auth/child-session"');
    expect(readFileSync(SCHEMA_FILE as string, 'utf8') === generated, 'clients/typescript/src/schema.ts is stale: run `npm run openapi`').toBe(true);
  });
});
