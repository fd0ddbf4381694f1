/**
 * `BOOTSTRAP_ADMIN_SUBJECTS`: the identities made `admin` and `active` on their first sign-in,
 * each an (issuer, subject) pair, because users are keyed by both: with several providers the same
 * `sub` can be issued by another provider to someone else, who must not become an administrator.
 * Nothing here reads the environment: `loadConfig` hands the parsed list in.
 */

/** One bootstrap administrator: the exact `iss` and `sub` of the first sign-in that makes them admin. */
export interface BootstrapAdmin {
  issuer: string;
  subject: string;
}

/**
 * An entry `<issuer>|<subject>`: an http(s) issuer URL, then the subject after the first `|`.
 * A URL never holds a bare `|` (RFC 3986), so the first one is the separator and the subject may
 * hold more (Auth0's `auth0|abc123`); an entry whose text before the first `|` is no http(s) URL is
 * a bare subject (again Auth0's `auth0|abc123`).
 */
const QUALIFIED = /^(https?:\/\/[^|\s]+)\|(.+)$/;

/**
 * Reads the entries of `BOOTSTRAP_ADMIN_SUBJECTS`. A bare subject belongs to the one configured
 * issuer, `singleIssuer`; with several providers (`singleIssuer` undefined) it is refused, since it
 * would say nothing about which provider issued it. A qualified entry must name a configured issuer
 * when all of them are known (`knownIssuers`; a provider known only by its discovery document has
 * none until it is read): an entry that can never match is a typo to fix, not a silent no-op.
 * Problems name the setting and the entry's position, never its value (a subject identifies a person).
 */
export function parseBootstrapAdmins(
  entries: readonly string[],
  issuers: { singleIssuer: string | undefined; knownIssuers: readonly string[] | undefined },
  problems: string[],
): BootstrapAdmin[] {
  const admins: BootstrapAdmin[] = [];
  entries.forEach((entry, index) => {
    const position = `entry ${index + 1}`;
    const qualified = QUALIFIED.exec(entry);
    if (!qualified) {
      if (issuers.singleIssuer === undefined) {
        problems.push(
          `BOOTSTRAP_ADMIN_SUBJECTS: ${position} is a bare subject; with IDP_PROVIDERS write each entry as <issuer>|<subject>`,
        );
        return;
      }
      admins.push({ issuer: issuers.singleIssuer, subject: entry });
      return;
    }
    const [, issuer = '', rest = ''] = qualified;
    // Never blank: the entry is trimmed and `.+` ends at its last, non-space character.
    const subject = rest.trim();
    const known = issuers.singleIssuer !== undefined ? [issuers.singleIssuer] : issuers.knownIssuers;
    if (!URL.canParse(issuer) || (known !== undefined && !known.includes(issuer))) {
      problems.push(`BOOTSTRAP_ADMIN_SUBJECTS: ${position} names an issuer that is not a configured identity provider's`);
      return;
    }
    admins.push({ issuer, subject });
  });
  return admins;
}

/** Whether a first sign-in of this (issuer, subject) is a bootstrap administrator's: both must match exactly. */
export function isBootstrapAdmin(admins: readonly BootstrapAdmin[], issuer: string, subject: string): boolean {
  return admins.some((admin) => admin.issuer === issuer && admin.subject === subject);
}
