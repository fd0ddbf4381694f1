import * as z from 'zod';
import { SECTIONS } from '../users/user';
import type { ChildSecretInput } from './create-child';

/**
 * Request bodies of the child-account endpoints (contract section 4). Unknown fields are refused.
 * Built on first use (`z.lazy`), not at import, to keep zod off the cold start.
 */

const scopes = () => z.array(z.enum(SECTIONS)).max(SECTIONS.length * 2);
// Loose bounds: the credential rules give the precise answer (and `weak_secret` for a weak secret).
const pin = () => z.string().max(64);
const password = () => z.string().max(1024);

export const createChildBody = z.lazy(() =>
  z.union([
    z.strictObject({ username: z.string().max(64), pin: pin(), scopes: scopes() }),
    z.strictObject({ username: z.string().max(64), password: password(), scopes: scopes() }),
  ]),
);

export const updateChildBody = z.lazy(() =>
  z
    .strictObject({
      scopes: scopes().optional(),
      pin: pin().optional(),
      password: password().optional(),
      status: z.enum(['active', 'disabled']).optional(),
    })
    .refine((body) => !(body.pin !== undefined && body.password !== undefined), { message: 'send a PIN or a password, not both' })
    .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'nothing to change' }),
);

/** The secret of a body that carries exactly one of `pin` and `password`. */
export function secretOf(body: { pin?: string | undefined; password?: string | undefined }): ChildSecretInput | undefined {
  if (body.pin !== undefined) return { kind: 'pin', value: body.pin };
  if (body.password !== undefined) return { kind: 'password', value: body.password };
  return undefined;
}
