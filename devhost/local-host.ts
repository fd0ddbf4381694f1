import type { Config } from '../shared/config';
import type { Logger } from '../shared/logging/logger';
import type { AppSettings } from './app-settings';
import { developmentQueueEndpoint, ensureAzurite } from './azurite-ownership';
import { createEventGridWebhook } from './eventgrid-host';
import type { FunctionRegistration, RpcLogLevel } from './functions-core-shim';
import { readHostSettings } from './host-json';
import { startHttpHost } from './http-host';
import { createHookRunner, errorLineFields, triggerOf } from './invocation';
import { loadApp } from './load-app';
import { startQueueListeners } from './queue-host';
import { buildRouteTable } from './route-table';
import { startTimers } from './timer-host';

export interface LocalHostOptions {
  /** The function app's root: package.json, host.json (the current directory, as for `func start`). */
  appRoot: string;
  config: Config;
  /** App settings: the environment with local.settings.json applied. */
  settings: AppSettings;
  logger: Logger;
  /**
   * Start Azurite for development storage when nothing listens on its port, and refuse a port held
   * by anything but an Azurite it may use (default true; devhost/azurite-ownership.ts).
   */
  manageAzurite?: boolean;
}

export interface LocalHost {
  port: number;
  functionCount: number;
  /**
   * Stops HTTP, timers and queues (together, as the Functions host stops its listeners), runs
   * `appTerminate` hooks, stops Azurite if it started it.
   * @param options.drainMs how long to wait for queue messages in flight (default: until they finish).
   */
  stop(options?: { drainMs?: number }): Promise<void>;
  /**
   * What the Functions host does for itself on SIGTERM: stops HTTP, timers and queues and Azurite,
   * but runs no `appTerminate` hook. The Node.js worker has no signal handler, so a signal is the
   * app's own to handle (shared/composition/app-lifecycle.ts); only a `WorkerTerminate` runs the hook (`stop`).
   */
  stopListeners(options?: { drainMs?: number }): Promise<void>;
}

const SUPPORTED_TRIGGERS = new Set(['httptrigger', 'timertrigger', 'queuetrigger', 'eventgridtrigger']);

/**
 * Runs a function app the way the Functions host would for its HTTP, timer, queue and Event Grid triggers:
 * loads it through the `@azure/functions-core` shim, runs `appStart` hooks, then serves.
 */
export async function startLocalHost(options: LocalHostOptions): Promise<LocalHost> {
  const { appRoot, config, settings, logger } = options;
  const hostSettings = readHostSettings(appRoot, settings);
  const queueEndpoint = options.manageAzurite === false ? undefined : developmentQueueEndpoint(config.storageConnectionString);
  const azurite = queueEndpoint ? await ensureAzurite(appRoot, queueEndpoint, logger) : undefined;
  try {
    const core = loadApp(appRoot, (level, category, message) => {
      const text = message || '(empty log message)';
      const logLevel = systemLevel(level);
      if (logLevel === 'error') logger.error({ category, ...errorLineFields(text) }, text);
      else logger[logLevel]({ category }, text);
    });
    const registrations = core.registrations();
    warnAboutUnsupported(registrations, core.hooks('log').length > 0, logger);
    const hooks = createHookRunner(core, appRoot);
    await hooks.appStart();

    const { routes, problems } = buildRouteTable(registrations, hostSettings.routePrefix);
    for (const { functionName, problem } of problems) logger.warn({ functionName, problem }, 'route problem');
    // Event Grid triggers are served by the HTTP host too, at the real host's extension webhook.
    const eventGrid = createEventGridWebhook({ registrations, hooks, logger });
    const http = await startHttpHost({ routes, endpoints: [eventGrid], hooks, logger, port: config.port });
    const timers = startTimers({ registrations, hooks, logger, settings });
    const queues = startQueueListeners({
      registrations,
      hooks,
      logger,
      settings,
      defaultConnectionString: config.storageConnectionString,
      queueSettings: hostSettings.queues,
    });
    logger.debug(
      { routes: routes.map((route) => route.template.text), eventGrid: eventGrid.functionNames, timers: timers.count, queues: queues.count },
      'functions indexed',
    );

    return {
      port: http.port,
      functionCount: registrations.length,
      stop: async (stopOptions = {}) => {
        await Promise.all([http.close(), timers.stop(), queues.stop(stopOptions.drainMs)]);
        try {
          await hooks.appTerminate();
        } finally {
          await azurite?.stop();
        }
      },
      stopListeners: async (stopOptions = {}) => {
        try {
          await Promise.all([http.close(), timers.stop(), queues.stop(stopOptions.drainMs)]);
        } finally {
          await azurite?.stop();
        }
      },
    };
  } catch (error) {
    await azurite?.stop();
    throw error;
  }
}

function warnAboutUnsupported(registrations: readonly FunctionRegistration[], hasLogHooks: boolean, logger: Logger): void {
  for (const { metadata } of registrations) {
    const functionName = metadata.name;
    const trigger = triggerOf(metadata);
    if (!trigger || !SUPPORTED_TRIGGERS.has(trigger.type.toLowerCase())) {
      logger.warn({ functionName, triggerType: trigger?.type ?? null }, 'function not run by the local host (unsupported trigger)');
    }
    for (const [name, binding] of Object.entries(metadata.bindings)) {
      const isHttpReturn = name === '$return' && binding.type?.toLowerCase() === 'http';
      if (name !== trigger?.name && !isHttpReturn) {
        logger.warn({ functionName, bindingType: binding.type ?? null }, 'binding ignored by the local host');
      }
    }
    if (metadata.retryOptions) logger.warn({ functionName }, 'retry policy ignored by the local host');
  }
  if (hasLogHooks) logger.warn('log hooks are not run by the local host');
}

function systemLevel(level: RpcLogLevel): 'debug' | 'info' | 'warn' | 'error' {
  if (level === 'error' || level === 'critical') return 'error';
  if (level === 'warning') return 'warn';
  return level === 'information' ? 'info' : 'debug';
}
