import type * as Mssql from 'mssql';
import type { DriverPool, DriverRequest, DriverTransaction, MssqlDriver, RequestOverrides, SqlParameterType } from '../../shared/db/mssql-driver';

/**
 * A stand-in for the `mssql` driver whose answers a test scripts: each request, BEGIN, COMMIT and
 * ROLLBACK is recorded and asks `respond` what to do, which may throw the driver's own errors
 * (a deadlock victim, a lost connection). For the SQL Server adapter's retry and lock logic, which
 * no server on these machines can exercise.
 */

export interface ScriptedCall {
  /** `pool` for a statement outside a transaction, `tx<n>` for one inside the n-th transaction. */
  on: string;
  kind: 'connect' | 'begin' | 'commit' | 'rollback' | 'query';
  sql?: string;
  params?: Record<string, { type: SqlParameterType; value: string | number | null }>;
  overrides?: RequestOverrides;
}

export type ScriptedAnswer = { recordset?: Record<string, unknown>[]; rowsAffected?: number[] } | undefined;

export interface ScriptedDriver extends MssqlDriver {
  readonly calls: ScriptedCall[];
  /** The calls of one kind. */
  callsOf(kind: ScriptedCall['kind']): ScriptedCall[];
}

/**
 * @param respond called for every call, in order; throw to fail it, return rows for a query.
 */
export function scriptedMssqlDriver(respond: (call: ScriptedCall, index: number) => ScriptedAnswer | Promise<ScriptedAnswer> = () => undefined): ScriptedDriver {
  const calls: ScriptedCall[] = [];
  let transactions = 0;
  const answer = async (call: ScriptedCall) => {
    calls.push(call);
    return respond(call, calls.length - 1);
  };
  const request = (on: string, overrides?: RequestOverrides): DriverRequest => {
    const params: NonNullable<ScriptedCall['params']> = {};
    return {
      input(name, type, value) {
        params[name] = { type, value };
      },
      async query(sql) {
        const result = await answer({ on, kind: 'query', sql, params, ...(overrides ? { overrides } : {}) });
        const recordset = result?.recordset ?? [];
        return { recordset, recordsets: [recordset], rowsAffected: result?.rowsAffected ?? [recordset.length], output: {} } as unknown as Mssql.IResult<
          Record<string, unknown>
        >;
      },
    };
  };
  return {
    calls,
    callsOf: (kind) => calls.filter((call) => call.kind === kind),
    createPool(): DriverPool {
      return {
        connect: () => answer({ on: 'pool', kind: 'connect' }),
        close: async () => undefined,
        onError: () => undefined,
        request: (overrides) => request('pool', overrides),
        transaction(): DriverTransaction {
          transactions += 1;
          const on = `tx${transactions}`;
          return {
            begin: () => answer({ on, kind: 'begin' }),
            commit: async () => {
              await answer({ on, kind: 'commit' });
            },
            rollback: async () => {
              await answer({ on, kind: 'rollback' });
            },
            request: (overrides) => request(on, overrides),
          };
        },
      };
    },
  };
}

/** The server error `number` as the driver raises it (a RequestError with the server's number). */
export function serverError(mssql: typeof Mssql, number: number): Mssql.RequestError {
  const error = new mssql.RequestError(`server error ${number}`, 'EREQUEST');
  (error as unknown as { number: number }).number = number;
  return error;
}
