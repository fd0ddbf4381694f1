import { format } from 'node:util';
import {
  InvocationContext,
  type EffectiveFunctionOptions,
  type FunctionInput,
  type FunctionOutput,
  type FunctionTrigger,
  type TraceContext,
  type TriggerMetadata,
} from '@azure/functions';
import { errorFields, type Logger } from '../shared/logging/logger';
import type { BindingInfo, FunctionMetadata, FunctionRegistration, FunctionsCore, HookName } from './functions-core-shim';
import { traceIdOf } from './invocation-trace';

/** Binding types ending in "Trigger" are triggers, as the library decides. */
export function isTriggerType(type: string | null | undefined): boolean {
  return typeof type === 'string' && /trigger$/i.test(type);
}

/** The trigger binding of a registration, with its name. */
export function triggerOf(metadata: FunctionMetadata): (BindingInfo & { name: string; type: string }) | undefined {
  for (const [name, binding] of Object.entries(metadata.bindings)) {
    if (isTriggerType(binding.type)) return { ...binding, name, type: binding.type as string };
  }
  return undefined;
}

/** `context.options` as the library builds it from the RPC bindings. */
export function effectiveOptions(metadata: FunctionMetadata): EffectiveFunctionOptions {
  let trigger: FunctionTrigger | undefined;
  let returnBinding: FunctionOutput | undefined;
  const extraInputs: FunctionInput[] = [];
  const extraOutputs: FunctionOutput[] = [];
  for (const [name, binding] of Object.entries(metadata.bindings)) {
    const option = { ...binding, type: binding.type ?? '', name };
    if (isTriggerType(binding.type)) trigger = option;
    else if (name === '$return') returnBinding = option;
    else if (binding.direction === 'in') extraInputs.push(option);
    else if (binding.direction === 'out') extraOutputs.push(option);
  }
  if (!trigger) throw new Error(`Function "${metadata.name}" has no trigger binding.`);
  return { trigger, return: returnBinding, extraInputs, extraOutputs };
}

export interface InvocationContextInit {
  registration: FunctionRegistration;
  invocationId: string;
  traceContext: TraceContext;
  triggerMetadata?: TriggerMetadata;
  /** Receives `context.log/info/warn/...` lines, which the real host collects in its own log. */
  logger: Logger;
}

const USER_LOG_LEVELS = {
  trace: 'debug',
  debug: 'debug',
  information: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
} as const;

/** The `InvocationContext` a handler gets, built with the library's own class. */
export function createInvocationContext(init: InvocationContextInit): InvocationContext {
  const functionName = init.registration.metadata.name;
  const traceId = traceIdOf(init.traceContext);
  return new InvocationContext({
    invocationId: init.invocationId,
    functionName,
    traceContext: init.traceContext,
    triggerMetadata: init.triggerMetadata,
    options: effectiveOptions(init.registration.metadata),
    logHandler: (level, ...args) => {
      if (level === 'none') return;
      const message = format(...args) || '(empty log message)';
      const fields = { functionName, invocationId: init.invocationId, traceId, category: 'user' };
      const logLevel = USER_LOG_LEVELS[level];
      if (logLevel !== 'error') return init.logger[logLevel](fields, message);
      init.logger.error({ ...fields, ...errorLineFields(message, args) }, message);
    },
  });
}

/**
 * Error lines carry `errorCode` and `stack` (the log contract). The stack is the logged error's,
 * else the call stack of the log call itself, which runs through the function that logged.
 */
export function errorLineFields(message: string, args: readonly unknown[] = []): { errorCode: string; stack: string; errorType: string } {
  const error = args.find((arg): arg is Error => arg instanceof Error);
  if (error) return { errorCode: 'internal_error', ...errorFields(error) };
  return { errorCode: 'internal_error', stack: new Error(message).stack ?? message, errorType: 'LoggedError' };
}

/** Runs the app's hooks around handlers, with the context objects the worker passes. */
export interface HookRunner {
  appStart(): Promise<void>;
  appTerminate(): Promise<void>;
  /** Runs pre-invocation hooks, the handler, post-invocation hooks; rethrows the handler's error. */
  invoke(handler: FunctionRegistration['handler'], context: InvocationContext, inputs: unknown[]): Promise<unknown>;
}

export function createHookRunner(core: Pick<FunctionsCore, 'hooks'>, functionAppDirectory: string): HookRunner {
  const appHookData: Record<string, unknown> = {};
  const appLevelHookData: Record<string, unknown> = {};

  // Sequential and in registration order; a throwing hook stops the invocation, as in the worker.
  const run = async (name: HookName, context: object): Promise<void> => {
    for (const callback of [...core.hooks(name)]) await callback(context);
  };

  return {
    appStart: () => run('appStart', { hookData: appLevelHookData, appHookData, functionAppDirectory }),
    appTerminate: () => run('appTerminate', { hookData: appLevelHookData, appHookData }),
    async invoke(handler, context, inputs) {
      const hookData: Record<string, unknown> = {};
      const pre = { hookData, appHookData, invocationContext: context, inputs, functionCallback: handler };
      await run('preInvocation', pre);
      const post = { hookData, appHookData, invocationContext: context, inputs: pre.inputs, result: null as unknown, error: null as unknown };
      try {
        post.result = await pre.functionCallback(...pre.inputs, context);
      } catch (error) {
        post.error = error;
      }
      await run('postInvocation', post);
      if (post.error !== null && post.error !== undefined) throw post.error;
      return post.result;
    },
  };
}
