import { ERROR_CATALOGUE } from '../errors/error-catalogue';
import { apiPath } from '../http/endpoint-definition';
import type { DocumentedEndpoint } from './openapi-document';

/** The lines of docs/api.md between which `npm run openapi` writes the endpoint table. */
export const TABLE_BEGIN = '<!-- BEGIN generated endpoints -->';
export const TABLE_END = '<!-- END generated endpoints -->';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * The docs' endpoint table, one row per endpoint in the document's order: method and path, who may
 * call it, its success status and summary, and the problem codes it answers with beyond those
 * every endpoint shares (which the line below the table names).
 */
export function endpointTable(endpoints: readonly DocumentedEndpoint[]): string {
  const rows = endpoints.map((endpoint) => {
    const methods = [endpoint.method.toUpperCase(), ...(endpoint.head ? ['HEAD'] : [])].join(', ');
    const problems = [...endpoint.problems]
      .sort((a, b) => ERROR_CATALOGUE[a].status - ERROR_CATALOGUE[b].status || a.localeCompare(b))
      .map((code) => `${ERROR_CATALOGUE[code].status} \`${code}\``);
    const answer = [`${endpoint.success.status}: ${endpoint.summary}`, ...(problems.length > 0 ? [problems.join(', ')] : [])].join('; ');
    return `| \`${methods} ${apiPath(endpoint)}\` | ${cell(endpoint.access)} | ${cell(answer)} |`;
  });
  return [
    '| method and path | who | answers |',
    '| --- | --- | --- |',
    ...rows,
    '',
    'Every endpoint may also answer 400 `invalid_request`, 408, 413, 415 (with a body), 431, 500 `internal_error` and',
    '503 `service_unavailable`; every one but the public ones 401 `unauthenticated`. Every path answers a method it',
    'does not take with 405 `method_not_allowed` and `Allow`, and `OPTIONS` with 204 and `Allow`. The OpenAPI document',
    '(`docs/openapi.json`, served at `GET /api/openapi.json`) has the schemas and examples.',
  ].join('\n');
}

/**
 * `markdown` with the text between `TABLE_BEGIN` and `TABLE_END` replaced by `table`; the rest of
 * the page is left as it is. Throws when the page lacks the two lines (a bug of the page).
 */
export function withEndpointTable(markdown: string, table: string): string {
  const begin = markdown.indexOf(TABLE_BEGIN);
  const end = markdown.indexOf(TABLE_END);
  if (begin < 0 || end < begin) throw new Error(`the page has no "${TABLE_BEGIN}" ... "${TABLE_END}" lines`);
  return `${markdown.slice(0, begin + TABLE_BEGIN.length)}\n${table}\n${markdown.slice(end)}`;
}
