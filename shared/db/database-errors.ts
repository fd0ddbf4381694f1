/**
 * Engine-neutral errors of the database port, besides `DependencyUnavailableError('database')`
 * (shared/errors) for a database that cannot be reached or used right now. The adapters translate
 * driver errors into these, so callers need not know which engine runs underneath. Everything else
 * a driver throws passes through unchanged: it is a bug (bad SQL, a broken constraint other than
 * uniqueness) and should surface as one.
 */

/**
 * An insert or update hit a unique index or primary key (a taken username, a lost race to create
 * the same row); the driver's error is the `cause`.
 */
export class UniqueViolationError extends Error {
  override readonly name = 'UniqueViolationError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}
