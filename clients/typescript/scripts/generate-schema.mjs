// @ts-check
/**
 * Generates src/schema.ts, the client's types, from the API's OpenAPI document (docs/openapi.json)
 * with openapi-typescript: `npm run generate` here, or `npm run openapi` at the repository's root
 * after a change of an endpoint. test/schema.test.ts fails while the committed file differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

export const DOCUMENT = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
export const SCHEMA_FILE = fileURLToPath(new URL('../src/schema.ts', import.meta.url));

/** The text of src/schema.ts for the document as it is now. */
export async function schemaSource() {
  const ast = await openapiTS(JSON.parse(readFileSync(DOCUMENT, 'utf8')));
  return `${COMMENT_HEADER}${astToString(ast)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, await schemaSource());
  process.stdout.write('wrote clients/typescript/src/schema.ts\n');
}
