import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApiJson } from '../shared/openapi/openapi-document';

/**
 * `npm run openapi`: writes the OpenAPI document generated from the code to docs/openapi.json (a
 * test fails while that copy differs from what the code generates).
 */
const target = path.resolve(__dirname, '../../docs/openapi.json');
writeFileSync(target, openApiJson());
process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
