import * as mssql from 'mssql';
import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { UniqueViolationError } from './database-errors';
import { poolTimeoutErrorClass } from './mssql-driver';
import { classifyMssqlFault, PoolConnectError, TRANSIENT_SERVER_ERRORS, translateMssqlError } from './mssql-faults';

/** What mssql rejects with when no pooled connection came free in time (tarn's class, mssql's message). */
const poolTimeout = () => new (poolTimeoutErrorClass())('Failed to acquire a connection from the pool: operation timed out');

function requestError(number: number, message = 'server error'): mssql.RequestError {
  const error = new mssql.RequestError(message, 'EREQUEST');
  (error as unknown as { number: number }).number = number;
  return error;
}

function abortedBy(original: unknown): mssql.TransactionError {
  const error = new mssql.TransactionError('Transaction has been aborted.', 'EABORT');
  Object.defineProperty(error, 'originalError', { value: original });
  return error;
}

describe('classifyMssqlFault', () => {
  it('reads every transient server error as refused: nothing applied, safe to run again', () => {
    const issueList = [1205, 1222, 4060, 40197, 40501, 40613, 49918, 10928, 10929, 40549, 40550, 40551, 40552, 40553];
    for (const number of issueList) expect(TRANSIENT_SERVER_ERRORS.has(number), String(number)).toBe(true);
    for (const number of TRANSIENT_SERVER_ERRORS) {
      expect(classifyMssqlFault(requestError(number))).toEqual({ kind: 'refused', number, code: 'EREQUEST' });
    }
  });

  it('reads a connection that broke mid-request as lost: a write may have been applied', () => {
    for (const number of [10053, 10054, 10060]) expect(classifyMssqlFault(requestError(number)).kind, String(number)).toBe('lost');
    expect(classifyMssqlFault(new mssql.ConnectionError('Connection lost - read ECONNRESET', 'ESOCKET'))).toEqual({ kind: 'lost', code: 'ESOCKET' });
    expect(classifyMssqlFault(new mssql.RequestError('Timeout: Request failed to complete in 15000ms', 'ETIMEOUT'))).toEqual({
      kind: 'lost',
      code: 'ETIMEOUT',
    });
    expect(classifyMssqlFault(new mssql.RequestError('Connection closed', 'ECONNCLOSED')).kind).toBe('lost');
  });

  it('reads a request that never left as unsent', () => {
    expect(classifyMssqlFault(new mssql.ConnectionError('Connection not yet open.', 'ENOTOPEN')).kind).toBe('unsent');
    expect(classifyMssqlFault(poolTimeout()).kind).toBe('unsent');
    // A TimeoutError by name only (the pool's class leaves `name` as "Error") is not the pool's.
    expect(classifyMssqlFault(Object.assign(new Error('x'), { name: 'TimeoutError' })).kind).toBe('permanent');
    expect(classifyMssqlFault(new PoolConnectError({ cause: new mssql.ConnectionError('connect ECONNREFUSED', 'ESOCKET') })).kind).toBe('unsent');
  });

  it('keeps a login refused for good, and everything else, permanent', () => {
    const badLogin = new mssql.ConnectionError("Login failed for user 'app'.", 'ELOGIN');
    expect(classifyMssqlFault(badLogin).kind).toBe('permanent');
    expect(classifyMssqlFault(new PoolConnectError({ cause: badLogin })).kind).toBe('permanent');
    const movingLogin = Object.assign(new mssql.ConnectionError('Database is not currently available', 'ELOGIN'), { number: 40613 });
    expect(classifyMssqlFault(new PoolConnectError({ cause: movingLogin })).kind).toBe('unsent');
    expect(classifyMssqlFault(requestError(2627)).kind).toBe('permanent');
    expect(classifyMssqlFault(requestError(102)).kind).toBe('permanent');
    // sp_getapplock refusing its parameters (our 51003) is a bug, unlike a lock not granted (51002).
    expect(classifyMssqlFault(requestError(51003)).kind).toBe('permanent');
    expect(classifyMssqlFault(new Error('bug')).kind).toBe('permanent');
  });

  it('reads a transaction the server aborted by what aborted it', () => {
    expect(classifyMssqlFault(abortedBy(requestError(1205)))).toEqual({ kind: 'unsent', number: 1205, code: 'EREQUEST' });
    expect(classifyMssqlFault(abortedBy(new mssql.ConnectionError('reset', 'ESOCKET'))).kind).toBe('unsent');
    expect(classifyMssqlFault(abortedBy(requestError(547))).kind).toBe('permanent');
  });
});

describe('translateMssqlError', () => {
  it('reports a duplicate key as UniqueViolationError', () => {
    for (const number of [2601, 2627]) {
      const original = requestError(number);
      const translated = translateMssqlError(original);
      expect(translated).toBeInstanceOf(UniqueViolationError);
      expect((translated as Error).cause).toBe(original);
    }
  });

  it('reports connection trouble and transient server errors as an unavailable database', () => {
    const refusedLogin = new mssql.ConnectionError('Login failed', 'ELOGIN');
    const cases = [
      new mssql.ConnectionError('Failed to connect', 'ESOCKET'),
      new mssql.RequestError('Timeout: Request failed to complete', 'ETIMEOUT'),
      requestError(40613),
      requestError(1205),
      requestError(51002),
      refusedLogin,
      poolTimeout(),
    ];
    for (const original of cases) {
      const translated = translateMssqlError(original);
      expect(translated).toBeInstanceOf(DependencyUnavailableError);
      expect((translated as Error).cause).toBe(original);
    }
    const connect = translateMssqlError(new PoolConnectError({ cause: refusedLogin }));
    expect(connect).toBeInstanceOf(DependencyUnavailableError);
    expect((connect as Error).cause).toBe(refusedLogin);
  });

  it('passes other errors through unchanged, and translated ones stay as they are', () => {
    const syntax = requestError(102, "Incorrect syntax near 'FORM'");
    expect(translateMssqlError(syntax)).toBe(syntax);
    const plain = new Error('bug');
    expect(translateMssqlError(plain)).toBe(plain);
    const unavailable = new DependencyUnavailableError('database', { cause: plain });
    expect(translateMssqlError(unavailable)).toBe(unavailable);
  });
});
