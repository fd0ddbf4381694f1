import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { UniqueViolationError } from './database-errors';
import { mssqlModule, poolTimeoutErrorClass } from './mssql-driver';

/**
 * What a failed SQL Server request means for the caller: was anything applied, may it run again,
 * and which port error it becomes.
 */

/**
 * Server error numbers that mean "not now": the request was refused or its transaction rolled
 * back, so nothing of it was applied and running it again is safe. Azure SQL's documented
 * transient errors, plus lock trouble.
 * - 1205 deadlock victim; 1222 lock request timed out; 51002 `lock` not granted in time (ours).
 * - 4060, 4221, 40613, 40143, 40540: the database is unavailable or moving (failover, reconfiguration).
 * - 40197, 40501, 49918, 49919, 49920: the service is busy or could not process the request.
 * - 10928, 10929: a resource limit of the tier (workers, sessions) was reached.
 * - 40549 to 40553: the session was ended for a long transaction, locks, tempdb, log or memory use
 *   (resource governance; retried a few times because the pressure is often another session's).
 */
export const TRANSIENT_SERVER_ERRORS: ReadonlySet<number> = new Set([
  1205, 1222, 4060, 4221, 10928, 10929, 40143, 40197, 40501, 40540, 40549, 40550, 40551, 40552, 40553, 40613, 49918,
  49919, 49920, 51002,
]);

/** Transport errors (as SqlClient numbers them) that may strike mid-request: the outcome is unknown. */
const TRANSPORT_SERVER_ERRORS: ReadonlySet<number> = new Set([10053, 10054, 10060]);

/** Duplicate key in a unique index (2601) or a primary key / unique constraint (2627). */
const UNIQUE_SERVER_ERRORS: ReadonlySet<number> = new Set([2601, 2627]);

/** Driver codes of a request that was never sent: no connection to send it on. */
const NOT_SENT_DRIVER_CODES: ReadonlySet<string> = new Set(['ENOTOPEN', 'ENOCONN', 'EINSTLOOKUP']);

/** Driver codes of a connection that broke, or a request that timed out, while a request was under way. */
const LOST_DRIVER_CODES: ReadonlySet<string> = new Set(['ESOCKET', 'ECONNCLOSED', 'ETIMEOUT']);

/**
 * - `unsent`: the request never reached the server (no connection, the pool had none free), or the
 *   transaction it belongs to was already rolled back: nothing was applied, anything may run again,
 *   a COMMIT included.
 * - `refused`: the server answered with a transient error: the request was not applied, so a
 *   statement, or a transaction that had not sent its COMMIT, may run again. A COMMIT refused this
 *   way is not retried: whether it took effect is not certain.
 * - `lost`: the connection broke (or the request timed out) while the request was under way: a
 *   read may run again, and so may a transaction that had not sent its COMMIT, which the server
 *   rolls back with the connection; a write outside a transaction, or a COMMIT, may have been applied.
 * - `permanent`: anything else (a bug, a constraint, a login the server refused for good).
 */
export type FaultKind = 'unsent' | 'refused' | 'lost' | 'permanent';

export interface MssqlFault {
  kind: FaultKind;
  /** The server's error number, when the server sent one. */
  number?: number;
  /** The driver's error code (`EREQUEST`, `ESOCKET`, …). */
  code?: string;
}

/** A pool that could not connect: nothing was sent. */
export class PoolConnectError extends Error {
  override readonly name = 'PoolConnectError';
  constructor(options: { cause: unknown }) {
    super('Could not connect to SQL Server', options);
  }
}

/**
 * Classifies a failure of the driver (or of the pool behind it). Transaction errors the driver
 * raises because the server aborted the transaction are classified by what aborted it.
 */
export function classifyMssqlFault(error: unknown): MssqlFault {
  if (error instanceof PoolConnectError) {
    const inner = classifyMssqlFault(error.cause);
    // A login the server refused for good (bad credentials, no such database) is not worth retrying.
    return { ...inner, kind: inner.code === 'ELOGIN' && inner.kind === 'permanent' ? 'permanent' : 'unsent' };
  }
  // The pool gave up waiting for a free connection: nothing was sent.
  if (error instanceof poolTimeoutErrorClass()) return { kind: 'unsent', code: 'EPOOLTIMEOUT' };
  const driver = mssqlModule();
  if (!(error instanceof driver.MSSQLError)) return { kind: 'permanent' };
  const aborted = (error as { originalError?: unknown }).originalError;
  if (error instanceof driver.TransactionError && error.code === 'EABORT' && aborted !== undefined && aborted !== error) {
    const cause = classifyMssqlFault(aborted);
    // The server rolled the transaction back: whatever aborted it, nothing of it was applied.
    return cause.kind === 'permanent' ? cause : { ...cause, kind: 'unsent' };
  }
  const number = serverErrorNumber(error);
  const code = typeof error.code === 'string' ? error.code : undefined;
  const facts = { ...(number === undefined ? {} : { number }), ...(code === undefined ? {} : { code }) };
  if (number !== undefined && TRANSIENT_SERVER_ERRORS.has(number)) return { kind: 'refused', ...facts };
  if (number !== undefined && TRANSPORT_SERVER_ERRORS.has(number)) return { kind: 'lost', ...facts };
  // A login refused while the database moves carries a transient number (above); any other is final.
  if (code === 'ELOGIN') return { kind: 'permanent', ...facts };
  if (code !== undefined && NOT_SENT_DRIVER_CODES.has(code)) return { kind: 'unsent', ...facts };
  if (code !== undefined && LOST_DRIVER_CODES.has(code)) return { kind: 'lost', ...facts };
  if (error instanceof driver.ConnectionError) return { kind: 'lost', ...facts };
  return { kind: 'permanent', ...facts };
}

/**
 * The port's error for a driver error: `DependencyUnavailableError('database')` for connection
 * trouble and transient server errors, `UniqueViolationError` for a duplicate key, else the error
 * itself (a bug: bad SQL, a broken constraint).
 */
export function translateMssqlError(error: unknown): unknown {
  if (error instanceof DependencyUnavailableError || error instanceof UniqueViolationError) return error;
  if (error instanceof PoolConnectError) return new DependencyUnavailableError('database', { cause: error.cause });
  const fault = classifyMssqlFault(error);
  if (fault.number !== undefined && UNIQUE_SERVER_ERRORS.has(fault.number) && error instanceof Error) {
    return new UniqueViolationError(error.message, { cause: error });
  }
  if (fault.kind !== 'permanent' || fault.code === 'ELOGIN') return new DependencyUnavailableError('database', { cause: error });
  return error;
}

/** The server's error number of a driver error (the driver copies it from the server's message). */
function serverErrorNumber(error: Error): number | undefined {
  const own = (error as { number?: unknown }).number;
  if (typeof own === 'number') return own;
  const original = (error as { originalError?: { number?: unknown } }).originalError?.number;
  return typeof original === 'number' ? original : undefined;
}
