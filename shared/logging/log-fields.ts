/**
 * Log-line fields beyond the log-line schema (`log-line.schema.json`) that operators' queries read:
 * the alert rules, the workbook and the runbooks under `infra/` and `docs/runbooks/`. Each one is
 * written by a logging call in `shared/` or `functions/` (test/infra checks that call exists), and a
 * query may read no other field, so renaming a field in code breaks a test instead of an alert.
 */
export const OPERATIONAL_LOG_FIELDS = [
  /** `dependency unavailable` (readiness): which dependency failed, `database` or `queue`. */
  'dependency',
  /** Identity-provider JWKS failures: the provider's HTTP status or a failure label. */
  'providerStatus',
  /** Identity-provider JWKS failures: whether keys fetched earlier keep sign-in working. */
  'staleKeysAvailable',
  /** `sign-in failed` and `session expired`: why. */
  'reason',
  /** Sign-in, sign-out and session lines: `adult` or `child`. */
  'accountType',
  /** `adult sign-in limit reached` and throttled sign-ins: which limit, e.g. `address` or `global`. */
  'scope',
  /** SQL Server retries and unknown commits: the server's error number (1205, 40613, …). */
  'sqlErrorNumber',
  /** SQL Server retries and unknown commits: the driver's error code (`ESOCKET`, `ETIMEOUT`, …). */
  'driverCode',
  /** `config_invalid` (the app exits at start-up): the names of the settings to fix. */
  'settings',
  /** `config_invalid`: what each of those settings needs (names and expectations, never a value). */
  'problems',
] as const;

export type OperationalLogField = (typeof OPERATIONAL_LOG_FIELDS)[number];
