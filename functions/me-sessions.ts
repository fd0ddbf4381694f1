import { app } from '@azure/functions';
import { appServices, endpoint } from '../shared/composition-root';
import { problem } from '../shared/errors/problem';
import { listSessions, revokeSessions } from '../shared/sessions/manage-sessions';

/**
 * GET /api/v1/me/sessions (authenticated): the caller's live sessions, newest first, the presented
 * one marked `current`. DELETE /api/v1/me/sessions: ends all of them but the presented one (all of
 * them with `?includeCurrent=true`), 204.
 */
const route = 'v1/me/sessions';

export const listOwnSessions = endpoint({ route, authenticated: true }, async ({ caller }) => {
  const items = await listSessions(caller.user.id, caller.session.id, appServices().auth);
  // One page: a person has few live sessions (see MAX_LISTED_SESSIONS).
  return { status: 200, jsonBody: { items, nextCursor: null } };
});

export const deleteOwnSessions = endpoint({ route, authenticated: true }, async ({ caller, request }) => {
  const includeCurrent = request.query.get('includeCurrent');
  if (includeCurrent !== null && includeCurrent !== 'true' && includeCurrent !== 'false') {
    return problem('invalid_request', { detail: 'includeCurrent: true or false.' });
  }
  const revoker = { actorUserId: caller.user.id, currentRowId: caller.session.id };
  await revokeSessions(caller.user.id, revoker, includeCurrent === 'true', appServices().auth);
  return { status: 204 };
});

app.http('me-sessions-list', { route, methods: ['GET'], authLevel: 'anonymous', handler: listOwnSessions });
app.http('me-sessions-delete-all', { route, methods: ['DELETE'], authLevel: 'anonymous', handler: deleteOwnSessions });
