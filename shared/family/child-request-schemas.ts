import * as z from 'zod/mini';
import { checkUsername, USERNAME_RULE_DETAIL, USERNAME_RULE_FIELD_CODES } from '../children/child-username';
import { lazySchema } from '../validation/lazy-schema';
import { SECTIONS } from '../users/user';
import type { ChildSecretInput } from './create-child';

/**
 * Request bodies of the child-account endpoints (contract section 4). Unknown fields are refused.
 * Written with `zod/mini` and built on first use (`lazySchema`): neither costs a cold start.
 */

const scopes = () => z.array(z.enum(SECTIONS)).check(z.maxLength(SECTIONS.length * 2));
// Loose bounds: the credential rules give the precise answer (and `weak_secret` for a weak secret).
const pin = () => z.string().check(z.maxLength(64));
const password = () => z.string().check(z.maxLength(1024));
/**
 * A new child's username: the username rules (`checkUsername`) run with the schema, so a body
 * with a bad username and other bad fields names every one of them in one answer. The rule's
 * entry comes first, so a name over 64 characters is told the rule, not the loose bound.
 */
const newUsername = () =>
  z.string().check(
    z.superRefine((value: string, ctx) => {
      const checked = checkUsername(value);
      if (!checked.ok) {
        ctx.addIssue({ code: 'custom', message: USERNAME_RULE_DETAIL, params: { fieldCode: USERNAME_RULE_FIELD_CODES[checked.rule] } });
      }
    }),
    z.maxLength(64),
  );

export const createChildBody = lazySchema(() =>
  z.union([
    z.strictObject({ username: newUsername(), pin: pin(), scopes: scopes() }),
    z.strictObject({ username: newUsername(), password: password(), scopes: scopes() }),
  ], { error: 'Send either pin or password, not both.' }),
);

export const updateChildBody = lazySchema(() =>
  z
    .strictObject({
      scopes: z.optional(scopes()),
      pin: z.optional(pin()),
      password: z.optional(password()),
      status: z.optional(z.enum(['active', 'disabled'])),
    })
    .check(
      z.refine((body) => !(body.pin !== undefined && body.password !== undefined), { message: 'send a PIN or a password, not both' }),
      z.refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'nothing to change' }),
    ),
);

/** The secret of a body that carries exactly one of `pin` and `password`. */
export function secretOf(body: { pin?: string | undefined; password?: string | undefined }): ChildSecretInput | undefined {
  if (body.pin !== undefined) return { kind: 'pin', value: body.pin };
  if (body.password !== undefined) return { kind: 'password', value: body.password };
  return undefined;
}
