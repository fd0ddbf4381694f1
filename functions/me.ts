import { profileOf, profileSchema } from '../shared/auth/profile';
import { defineEndpoint } from '../shared/composition/app-functions';
import { eraseOwnAccount } from '../shared/data-rights/erase-account';
import { EXAMPLE_TIME, userExample } from '../shared/openapi/api-schemas';

/** The caller's own account: their profile, and the erasure of an adult's account. */
const route = 'v1/me';

/** GET (signed in): the caller's profile and role, from what the session check loaded. */
export const me = defineEndpoint({
  name: 'me',
  method: 'get',
  route,
  operationId: 'getProfile',
  tag: 'me',
  summary: "The caller's profile, role and session",
  access: 'signed in',
  success: {
    status: 200,
    description: 'The profile.',
    body: { name: 'Profile', schema: profileSchema },
    example: { ...userExample, session: { createdAt: EXAMPLE_TIME, expiresAt: EXAMPLE_TIME } },
  },
  problems: [],
  handler: async ({ caller }) => ({ status: 200, jsonBody: profileOf(caller) }),
});

/**
 * DELETE (adult): erases the caller's account, 204; 409 `children_not_erased` while a child of
 * theirs is not erased; 403 for a child's token.
 */
export const eraseOwnData = defineEndpoint({
  name: 'me-delete',
  method: 'delete',
  route,
  operationId: 'eraseOwnAccount',
  tag: 'me',
  summary: "Erase the caller's account (adults; every child erased first)",
  access: 'adult',
  success: { status: 204, description: 'The account is erased.' },
  problems: ['forbidden', 'children_not_erased', 'invalid_transition'],
  handler: async ({ caller }, services) => {
    const result = await eraseOwnAccount(caller.user, services.corePorts);
    if (!result.ok) return result.problem;
    return { status: 204 };
  },
});
