import { createRequire } from 'node:module';
import type * as Mssql from 'mssql';

/**
 * The part of the `mssql` package the SQL Server adapter uses, as a small port: the production
 * driver wraps the package itself; tests pass fakes that raise a chosen server error or record the
 * statements the adapter sends. Errors are the package's own classes either way.
 */

/** A parameter's declared SQL type: fixed, so SQL Server caches one plan per statement text. */
export type SqlParameterType = { kind: 'nvarchar'; length: 4000 | 'max' } | { kind: 'int' } | { kind: 'bigint' } | { kind: 'float' };

/** Per-request settings that override the pool's (`requestTimeout` in milliseconds). */
export interface RequestOverrides {
  requestTimeout?: number;
}

export interface DriverRequest {
  input(name: string, type: SqlParameterType, value: string | number | null): void;
  query(sql: string): Promise<Mssql.IResult<Record<string, unknown>>>;
}

export interface DriverTransaction {
  begin(): Promise<unknown>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  request(overrides?: RequestOverrides): DriverRequest;
}

export interface DriverPool {
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  /** Connection trouble no request is waiting for. */
  onError(listener: (error: unknown) => void): void;
  request(overrides?: RequestOverrides): DriverRequest;
  transaction(): DriverTransaction;
}

export interface MssqlDriver {
  /** A pool for `config`; nothing is connected until `connect`. */
  createPool(config: Mssql.config): DriverPool;
}

/**
 * The `mssql` package, loaded on first use: it and the Azure identity stack behind it are most of a
 * cold start, and an app on SQLite never needs them.
 */
export function mssqlModule(): typeof Mssql {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('mssql') as typeof Mssql;
}

/**
 * The error class of the pool behind `mssql` (tarn) for "no connection came free in time", loaded
 * from where `mssql` loads it (its `name` is a plain `Error`, so only the class tells it apart).
 */
export function poolTimeoutErrorClass(): new (message?: string) => Error {
  poolTimeoutError ??= (createRequire(require.resolve('mssql'))('tarn') as { TimeoutError: new (message?: string) => Error }).TimeoutError;
  return poolTimeoutError;
}

let poolTimeoutError: (new (message?: string) => Error) | undefined;

/** The production driver: `mssql` (tedious) itself. */
export function tediousDriver(): MssqlDriver {
  return {
    createPool(config) {
      const driver = mssqlModule();
      const pool = new driver.ConnectionPool(config);
      return {
        connect: () => pool.connect(),
        close: () => pool.close(),
        onError: (listener) => {
          pool.on('error', listener);
        },
        request: (overrides) => wrapRequest(driver, requestWith(pool, overrides)),
        transaction: () => {
          const transaction = pool.transaction();
          return {
            begin: () => transaction.begin(),
            commit: () => transaction.commit(),
            rollback: () => transaction.rollback(),
            request: (overrides) => wrapRequest(driver, requestWith(transaction, overrides)),
          };
        },
      };
    },
  };
}

/** mssql 12 takes per-request overrides; its type declarations do not say so yet. */
function requestWith(source: Mssql.ConnectionPool | Mssql.Transaction, overrides: RequestOverrides | undefined): Mssql.Request {
  return (source.request as (this: typeof source, overrides?: RequestOverrides) => Mssql.Request).call(source, overrides);
}

function wrapRequest(driver: typeof Mssql, request: Mssql.Request): DriverRequest {
  return {
    input: (name, type, value) => {
      request.input(name, sqlTypeOf(driver, type), value);
    },
    query: (sql) => request.query<Record<string, unknown>>(sql),
  };
}

function sqlTypeOf(driver: typeof Mssql, type: SqlParameterType): Mssql.ISqlType | (() => Mssql.ISqlType) {
  switch (type.kind) {
    case 'nvarchar':
      return driver.NVarChar(type.length === 'max' ? driver.MAX : type.length);
    case 'int':
      return driver.Int;
    case 'bigint':
      return driver.BigInt;
    case 'float':
      return driver.Float;
  }
}
