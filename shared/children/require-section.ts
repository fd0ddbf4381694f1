import { writeAudit, type AuditWriterDeps } from '../audit/write-audit';
import { findChildById } from './child-account-store';
import type { DatabaseProvider } from '../db/lazy-database';
import { problem, type Problem } from '../errors/problem';
import type { Section, User } from '../users/user';
import type { Logger } from '../logging/logger';

/** The ports the section guard takes: it reads the child's scopes, and audits and logs a refusal. */
export interface SectionGuardDeps extends AuditWriterDeps {
  database: DatabaseProvider;
  logger: Logger;
}

/**
 * The section guard for endpoints of a section (contract section 4): adults pass; a child passes
 * only when its parent opened the section. A refusal is 403 `forbidden`, a log line with the child's
 * `userId` (on the line, from the request's log context) and the section, and an `authz_fail` row.
 * Scopes are read fresh each time, so a parent's change applies to the very next request.
 * @returns undefined when the caller may go on, else the problem to answer.
 */
export async function requireSection(user: User, section: Section, deps: SectionGuardDeps): Promise<Problem | undefined> {
  if (user.accountType === 'adult') return undefined;
  const db = await deps.database.get();
  const child = await findChildById(db, user.id);
  if (child?.scopes.includes(section)) return undefined;
  await writeAudit(
    db,
    {
      eventType: 'authz_fail',
      outcome: 'failure',
      actorUserId: user.id,
      subjectUserId: user.id,
      targetType: 'section',
      targetId: section,
      details: { section },
    },
    deps,
  );
  deps.logger.info({ section, childUserId: user.id }, 'section access refused');
  return problem('forbidden', { detail: 'This section is not open to this account.' });
}
