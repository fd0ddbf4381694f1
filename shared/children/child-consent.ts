import { SECTIONS, type Section } from '../users/user';
import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { entityId, section, timestamp } from '../users/api-fields';

/**
 * How a parent's consent was given. `account_holder_confirmation`: the signed-in account holder
 * (the parent) confirmed it with the request that created the child or changed its sections.
 */
export const CONSENT_METHODS = ['account_holder_confirmation'] as const;
export type ConsentMethod = (typeof CONSENT_METHODS)[number];

/** A consent record (`ChildConsents`): what the parent consented to for the child, under which terms, when and how. */
export interface ChildConsent {
  id: string;
  childUserId: string;
  /** The account holder who gave it. */
  parentUserId: string;
  /** 1 for a child's first consent, then one more for each. */
  revision: number;
  termsVersion: string;
  sections: Section[];
  method: ConsentMethod;
  givenAt: string;
  /** When a later consent took its place; null while in force or once withdrawn. */
  replacedAt: string | null;
  /** When the parent withdrew all consent; null otherwise. */
  withdrawnAt: string | null;
}

export function toChildConsentView(consent: ChildConsent): ChildConsentView {
  return {
    id: consent.id,
    termsVersion: consent.termsVersion,
    sections: consent.sections,
    method: consent.method,
    givenAt: consent.givenAt,
    replacedAt: consent.replacedAt,
    withdrawnAt: consent.withdrawnAt,
  };
}

/** `sections` without repeats, in the catalogue's order: one spelling of a set, to store and compare. */
export function canonicalSections(sections: Iterable<Section>): Section[] {
  const chosen = new Set(sections);
  return SECTIONS.filter((section) => chosen.has(section));
}

/** What `GET /api/v1/children/{id}/consents` shows of a consent: the OpenAPI document's schema, and `ChildConsentView`. */
export const childConsentViewSchema = lazySchema(() =>
  z.strictObject({
    id: entityId(),
    termsVersion: z.string(),
    sections: z.array(section()),
    method: z.enum(CONSENT_METHODS),
    givenAt: timestamp(),
    replacedAt: z.nullable(timestamp()),
    withdrawnAt: z.nullable(timestamp()),
  }),
);

/** A consent as the API shows it (`childConsentViewSchema`). */
export type ChildConsentView = z.output<ReturnType<typeof childConsentViewSchema.schema>>;
