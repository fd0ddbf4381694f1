import { SECTIONS, type Section } from '../users/user';

/**
 * A child's `ChildAccounts.scopes` column (a JSON array) as sections. Anything that is not a known
 * section is dropped rather than trusted, so a hand-edited or older row can never open more.
 */
export function parseStoredScopes(json: string): Section[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((s): s is Section => SECTIONS.includes(s as Section)) : [];
}
