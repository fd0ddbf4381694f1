import * as z from 'zod/mini';
import { ACCOUNT_TYPES, ADULT_ROLES, SECTIONS, USER_STATUSES } from './user';

/**
 * Field schemas the response schemas share (the OpenAPI document is generated from them, and the
 * end-to-end suites check every answer against it). Functions, not values: a schema is built only
 * when a response schema is, never at a cold start.
 */

/** An ISO 8601 UTC time as the app writes it. */
export const timestamp = () => z.iso.datetime();
/** A resource id: a UUID. */
export const entityId = () => z.uuid();
export const role = () => z.enum([...ADULT_ROLES, 'child']);
export const userStatus = () => z.enum(USER_STATUSES);
export const accountType = () => z.enum(ACCOUNT_TYPES);
export const section = () => z.enum(SECTIONS);

/** A page of a list: `nextCursor` is null on the last page. */
export const pageOf = <T extends z.core.$ZodType>(item: T) => z.strictObject({ items: z.array(item), nextCursor: z.nullable(z.string()) });
