import { app } from '@azure/functions';
import { appServices } from '../shared/composition-root';
import { exportAccount } from '../shared/users/export-account';

/** GET /api/v1/me/export (authenticated, adult or child): the caller's own data as one JSON document. */
const route = 'v1/me/export';
const services = appServices();

export const exportOwnData = services.endpoint({ route, authenticated: true }, async ({ caller }) => ({
  status: 200,
  jsonBody: await exportAccount({ user: caller.user, sessionRowId: caller.session.id }, services.auth),
}));

app.http('me-export', { route, methods: ['GET'], authLevel: 'anonymous', handler: exportOwnData });
