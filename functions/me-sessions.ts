import { defineEndpoint } from '../shared/composition/app-functions';
import { isProblem } from '../shared/errors/problem';
import { EXAMPLE_TIME, SESSION_LIST } from '../shared/openapi/api-schemas';
import { queryFlagParameter, readQueryFlag } from '../shared/http/query-flag';
import { listSessions, revokeSessions } from '../shared/sessions/manage-sessions';

/** The caller's live sessions: the list, and ending them all. */
const route = 'v1/me/sessions';

/** GET (signed in): the caller's live sessions, newest first, the presented one marked `current`. */
export const listOwnSessions = defineEndpoint({
  name: 'me-sessions-list',
  method: 'get',
  route,
  operationId: 'listOwnSessions',
  tag: 'me',
  summary: "The caller's live sessions, newest first (at most 100)",
  access: 'signed in',
  success: {
    status: 200,
    description: 'One page; `nextCursor` is always null.',
    body: SESSION_LIST,
    example: {
      items: [{ id: '0123456789abcdef0123456789abcdef', createdAt: EXAMPLE_TIME, lastUsedAt: EXAMPLE_TIME, expiresAt: EXAMPLE_TIME, client: 'iOS app', current: true }],
      nextCursor: null,
    },
  },
  problems: [],
  handler: async ({ caller }, services) => {
    const items = await listSessions(caller.user.id, caller.session.id, services.corePorts);
    // One page: a person has few live sessions (see MAX_LISTED_SESSIONS).
    return { status: 200, jsonBody: { items, nextCursor: null } };
  },
});

/** DELETE (signed in): ends all of them but the presented one (all of them with `?includeCurrent=true`), 204. */
export const deleteOwnSessions = defineEndpoint({
  name: 'me-sessions-delete-all',
  method: 'delete',
  route,
  operationId: 'deleteOwnSessions',
  tag: 'me',
  summary: 'End every live session but the presented one (or it too)',
  access: 'signed in',
  query: [queryFlagParameter('includeCurrent', 'End the presented session too.')],
  success: { status: 204, description: 'The sessions ended.' },
  problems: [],
  handler: async ({ caller, request }, services) => {
    const includeCurrent = readQueryFlag(request.query, 'includeCurrent');
    if (isProblem(includeCurrent)) return includeCurrent;
    const revoker = { actorUserId: caller.user.id, currentRowId: caller.session.id };
    await revokeSessions(caller.user.id, revoker, includeCurrent, services.corePorts);
    return { status: 204 };
  },
});
