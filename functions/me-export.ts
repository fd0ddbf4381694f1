import { defineEndpoint } from '../shared/composition/app-functions';
import { accountExportSchema, exportAccount } from '../shared/data-rights/export-account';

/** GET /api/v1/me/export (signed in, adult or child): the caller's own data as one JSON document. */
export const exportOwnData = defineEndpoint({
  name: 'me-export',
  method: 'get',
  route: 'v1/me/export',
  operationId: 'exportOwnData',
  tag: 'me',
  summary: 'Everything the service holds about the caller, as one document',
  access: 'signed in',
  success: { status: 200, description: 'The export.', body: { name: 'AccountExport', schema: accountExportSchema } },
  problems: [],
  handler: async ({ caller }, services) => ({
    status: 200,
    jsonBody: await exportAccount({ user: caller.user, sessionRowId: caller.session.id }, services.corePorts),
  }),
});
