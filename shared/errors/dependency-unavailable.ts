/**
 * Thrown by adapters when a dependency (database, queue storage) cannot be reached. The HTTP
 * pipeline answers it with 503 `service_unavailable` instead of 500: the request was fine, the
 * platform was not. The original library error stays in `cause` for the error line.
 */
export class DependencyUnavailableError extends Error {
  override readonly name = 'DependencyUnavailableError';
  constructor(
    readonly dependency: 'database' | 'queue',
    options: { cause: unknown },
  ) {
    super(`${dependency} unavailable`, options);
  }
}
