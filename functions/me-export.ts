import { app } from '@azure/functions';
import { appServices, endpoint } from '../shared/composition-root';
import { exportAccount } from '../shared/data-rights/export-account';

/** GET /api/v1/me/export (authenticated, adult or child): the caller's own data as one JSON document. */
const route = 'v1/me/export';

export const exportOwnData = endpoint({ route, authenticated: true }, async ({ caller }) => ({
  status: 200,
  jsonBody: await exportAccount({ user: caller.user, sessionRowId: caller.session.id }, appServices().auth),
}));

app.http('me-export', { route, methods: ['GET'], authLevel: 'anonymous', handler: exportOwnData });
