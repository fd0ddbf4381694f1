import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { API_ENDPOINTS } from '../functions/index';
import { endpointTable, withEndpointTable } from '../shared/openapi/endpoint-table';
import { openApiJson } from '../shared/openapi/openapi-document';

/**
 * `npm run openapi`: writes what the endpoints' definitions generate: the OpenAPI document to
 * docs/openapi.json, and the endpoint table of docs/api.md between its two marker lines (tests
 * fail while either copy differs from what the code generates).
 */
const docs = path.resolve(__dirname, '../../docs');
writeFileSync(path.join(docs, 'openapi.json'), openApiJson(API_ENDPOINTS));
const apiPage = path.join(docs, 'api.md');
writeFileSync(apiPage, withEndpointTable(readFileSync(apiPage, 'utf8'), endpointTable(API_ENDPOINTS)));
process.stdout.write(`wrote ${path.relative(process.cwd(), path.join(docs, 'openapi.json'))} and the endpoint table of ${path.relative(process.cwd(), apiPage)}\n`);
