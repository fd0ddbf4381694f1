/**
 * Thrown by adapters when a dependency (database, queue storage) cannot be reached, or has no room
 * for more work (`hashing`: the secret hasher's waiting line is full). The HTTP
 * pipeline answers it with 503 `service_unavailable` instead of 500: the request was fine, the
 * platform was not. The original library error stays in `cause` for the error line.
 */
export class DependencyUnavailableError extends Error {
  override readonly name = 'DependencyUnavailableError';
  constructor(
    readonly dependency: 'database' | 'queue' | 'hashing',
    options: { cause: unknown },
  ) {
    super(`${dependency} unavailable`, options);
  }
}
