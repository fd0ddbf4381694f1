import Module from 'node:module';

/**
 * The local host's stand-in for `@azure/functions-core`, the module the Azure Functions Node.js
 * worker builds into its process. `@azure/functions` requires it lazily and hands it every
 * `app.http/timer/storageQueue(...)` registration and every `app.hook.*` callback; this shim
 * records them exactly as received so the local host serves the same routes, methods, schedules
 * and queue names the real host would index.
 */

export const FUNCTIONS_CORE_MODULE = '@azure/functions-core';

/** One binding as `@azure/functions` describes it: the known RPC fields plus the binding's own options. */
export interface BindingInfo {
  type?: string | null;
  direction?: 'in' | 'out' | 'inout' | null;
  dataType?: string | null;
  properties?: Record<string, string> | null;
  readonly [option: string]: unknown;
}

/** The `registerFunction` metadata (a slimmed-down `RpcFunctionMetadata`). */
export interface FunctionMetadata {
  name: string;
  functionId?: string;
  bindings: Record<string, BindingInfo>;
  retryOptions?: unknown;
}

export type FunctionCallback = (...args: unknown[]) => unknown;

export interface FunctionRegistration {
  metadata: FunctionMetadata;
  handler: FunctionCallback;
}

export const HOOK_NAMES = ['preInvocation', 'postInvocation', 'appStart', 'appTerminate', 'log'] as const;
export type HookName = (typeof HOOK_NAMES)[number];

/** A hook callback as registered: it receives the worker's plain core context object. */
export type HookCallback = (context: object) => unknown;

export type RpcLogLevel = 'trace' | 'debug' | 'information' | 'warning' | 'error' | 'critical' | 'none';
export type SystemLogSink = (level: RpcLogLevel, category: string, message: string) => void;

/** The programming model `@azure/functions` sets; recorded, not used (the host builds contexts itself). */
export interface ProgrammingModel {
  name: string;
  version: string;
}

/** What `dispose()` does for the worker: undo a registration. */
export class Disposable {
  #callOnDispose: (() => void) | undefined;

  constructor(callOnDispose: () => void) {
    this.#callOnDispose = callOnDispose;
  }

  static from(...disposables: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => {
      for (const disposable of disposables) disposable.dispose();
    });
  }

  dispose(): void {
    this.#callOnDispose?.();
    this.#callOnDispose = undefined;
  }
}

/** The module object `require('@azure/functions-core')` returns inside the local host. */
export interface FunctionsCoreApi {
  readonly version: string;
  readonly hostVersion: string;
  readonly Disposable: typeof Disposable;
  registerFunction(metadata: FunctionMetadata, callback: FunctionCallback): Disposable;
  registerHook(hookName: string, callback: HookCallback): Disposable;
  setProgrammingModel(model: ProgrammingModel): void;
  getProgrammingModel(): ProgrammingModel | undefined;
  log(level: RpcLogLevel, category: string, message: string): void;
}

/** The shim plus what it recorded. */
export interface FunctionsCore {
  readonly api: FunctionsCoreApi;
  registrations(): readonly FunctionRegistration[];
  hooks(name: HookName): readonly HookCallback[];
  programmingModel(): ProgrammingModel | undefined;
  /** Ends the registration phase, as the worker does once the entry point is loaded. */
  closeRegistration(): void;
  /** Where `coreApi.log` lines (the library's system messages) go. */
  setSystemLog(sink: SystemLogSink): void;
}

/**
 * Creates a recording `@azure/functions-core`. It enforces what the worker enforces: unique
 * function names, known hook names, and registration only while the app is loading.
 */
export function createFunctionsCore(systemLog: SystemLogSink = () => undefined): FunctionsCore {
  const registrations: FunctionRegistration[] = [];
  const hooks = new Map<HookName, HookCallback[]>(HOOK_NAMES.map((name) => [name, []]));
  let model: ProgrammingModel | undefined;
  let registrationOpen = true;
  let sink = systemLog;

  const api: FunctionsCoreApi = {
    version: 'local-host',
    hostVersion: '4.0.0-local',
    Disposable,
    registerFunction(metadata, callback) {
      if (!registrationOpen) throw new Error('A function can only be registered during app startup.');
      if (typeof metadata?.name !== 'string' || metadata.name === '') throw new Error('A function needs a name.');
      if (typeof callback !== 'function') throw new Error(`Function "${metadata.name}" has no handler.`);
      const clash = registrations.some((known) => known.metadata.name.toLowerCase() === metadata.name.toLowerCase());
      if (clash) throw new Error(`A function with the name "${metadata.name}" has already been registered.`);
      const registration: FunctionRegistration = { metadata, handler: callback };
      registrations.push(registration);
      return new Disposable(() => {
        if (!registrationOpen) return;
        const index = registrations.indexOf(registration);
        if (index >= 0) registrations.splice(index, 1);
      });
    },
    registerHook(hookName, callback) {
      const callbacks = hooks.get(hookName as HookName);
      if (!callbacks) throw new RangeError(`Unrecognized hook "${hookName}"`);
      callbacks.push(callback);
      return new Disposable(() => {
        const index = callbacks.indexOf(callback);
        if (index >= 0) callbacks.splice(index, 1);
      });
    },
    setProgrammingModel(programmingModel) {
      model = programmingModel;
    },
    getProgrammingModel() {
      return model;
    },
    log(level, category, message) {
      sink(level, category, message);
    },
  };

  return {
    api,
    registrations: () => registrations,
    hooks: (name) => hooks.get(name) ?? [],
    programmingModel: () => model,
    closeRegistration: () => {
      registrationOpen = false;
    },
    setSystemLog: (next) => {
      sink = next;
    },
  };
}

/** Node's loader internals the shim hooks into; not in @types/node because they are private. */
interface ModuleInternals {
  _resolveFilename(request: string, ...rest: unknown[]): string;
  _cache: Record<string, Module>;
}

let installed: FunctionsCore | undefined;

/**
 * Makes `require('@azure/functions-core')` return the shim in this process, the way the worker
 * makes its built-in module available. Idempotent: `@azure/functions` caches the first module it
 * gets, so a process has exactly one.
 */
export function installFunctionsCore(systemLog?: SystemLogSink): FunctionsCore {
  if (installed) {
    if (systemLog) installed.setSystemLog(systemLog);
    return installed;
  }
  const core = createFunctionsCore(systemLog);
  const internals = Module as unknown as ModuleInternals;
  const resolveFilename = internals._resolveFilename;
  internals._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
    return request === FUNCTIONS_CORE_MODULE ? FUNCTIONS_CORE_MODULE : resolveFilename.call(this, request, ...rest);
  };
  const coreModule = new Module(FUNCTIONS_CORE_MODULE);
  coreModule.filename = FUNCTIONS_CORE_MODULE;
  coreModule.exports = core.api;
  coreModule.loaded = true;
  internals._cache[FUNCTIONS_CORE_MODULE] = coreModule;
  installed = core;
  return core;
}
