import { app, type HttpHandler, type InvocationContext } from '@azure/functions';
import { backgroundHandler } from '../background/background-handler';
import type { BackgroundFunction } from '../background/background-function';
import { appConfig, appServices, type AppServices } from '../composition-root';
import type { Config } from '../config';
import { httpEndpoint, isAuthenticated, isServed, type CatchAllFunction, type HttpEndpoint } from '../http/endpoint-definition';
import { installAppLifecycle } from './app-lifecycle';

/**
 * The app's functions as `functions/` declares them, and the one place they are registered with
 * the host. Every handler takes the services as a parameter: the registration gives it the
 * process's (`appServices()`, built at the first invocation), a test its own.
 */

/** Any function of the app. */
export type AppFunction = HttpEndpoint<AppServices> | CatchAllFunction<AppServices> | BackgroundFunction<AppServices>;

/** Declares an endpoint whose handler takes the app's services. */
export const defineEndpoint = httpEndpoint<AppServices>();

/** Declares a timer, queue or Event Grid function whose handler takes the app's services. */
export function defineBackgroundFunction<F extends BackgroundFunction<AppServices>>(definition: F): F {
  return definition;
}

/** The HTTP functions among `functions`, in their order. */
export function endpointsOf(functions: readonly AppFunction[]): HttpEndpoint<AppServices>[] {
  return functions.filter((fn): fn is HttpEndpoint<AppServices> => fn.kind === 'http');
}

/** Every method a catch-all takes: whatever no endpoint matched. */
const CATCH_ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const CATCH_ALL_ROUTE = '{*path}';

/**
 * An HTTP function's handler as the host calls it, in the pipeline of `services` and given them:
 * what the registration runs, and what tests call with their own services.
 */
export function httpHandlerOf(fn: HttpEndpoint<AppServices> | CatchAllFunction<AppServices>, services: AppServices): HttpHandler {
  if (fn.kind === 'catch-all') return services.httpPipeline({ route: CATCH_ALL_ROUTE }, (scope) => fn.handler(scope, services));
  return services.httpPipeline(
    { route: fn.route, body: fn.body?.schema, authenticated: isAuthenticated(fn) },
    (scope) => fn.handler(scope, services),
  );
}

/**
 * A timer's, queue's or Event Grid function's handler as the host calls it, given the services of
 * `services()` (a getter: the registration's builds the process's at the first run, not before).
 */
export function backgroundHandlerOf<TTrigger>(
  fn: BackgroundFunction<AppServices>,
  services: () => AppServices,
): (trigger: TTrigger, context: InvocationContext) => Promise<void> {
  const { logsWith } = fn;
  return backgroundHandler<TTrigger>(
    fn.name,
    () => (logsWith ? logsWith.deps(services()) : services()),
    // Each kind's handler takes its own trigger type; the host hands each function its own.
    (trigger, context) => (fn.handler as (services: AppServices, trigger: unknown, context: InvocationContext) => Promise<void>)(services(), trigger, context),
    logsWith ? { service: logsWith.service } : {},
  );
}

export interface AppProcess {
  /** The settings (default: the process's, `appConfig()`: a bad setting stops the process here). */
  config: () => Config;
  /** The services (default: the process's, built at the first invocation). */
  services: () => AppServices;
}

/**
 * Builds the app from its settings: reads them (a bad setting stops the app before anything is
 * registered), registers every function with the host, each handler building the services only
 * at its first invocation (the cold start pays for none of them), then the start and stop hooks.
 */
export function registerApp(functions: readonly AppFunction[], process: AppProcess = { config: appConfig, services: appServices }): void {
  const config = process.config();
  for (const fn of functions) {
    switch (fn.kind) {
      case 'http':
        if (!isServed(fn, config)) break;
        app.http(fn.name, {
          route: fn.route,
          methods: [fn.method.toUpperCase() as Uppercase<typeof fn.method>, ...(fn.head ? (['HEAD'] as const) : [])],
          authLevel: 'anonymous',
          handler: lazyHttpHandler(fn, process.services),
        });
        break;
      case 'catch-all':
        app.http(fn.name, {
          route: CATCH_ALL_ROUTE,
          methods: [...CATCH_ALL_METHODS],
          authLevel: 'anonymous',
          handler: lazyHttpHandler(fn, process.services),
        });
        break;
      case 'timer':
        app.timer(fn.name, { schedule: fn.schedule(config), handler: backgroundHandlerOf(fn, process.services) });
        break;
      case 'queue':
        app.storageQueue(fn.name, { queueName: fn.queueName, connection: fn.connection, handler: backgroundHandlerOf(fn, process.services) });
        break;
      case 'event-grid':
        app.eventGrid<unknown>(fn.name, { handler: backgroundHandlerOf(fn, process.services) });
        break;
    }
  }
  installAppLifecycle(process.services);
}

/** The handler built (with the services, if nothing built them yet) at its first request. */
function lazyHttpHandler(fn: HttpEndpoint<AppServices> | CatchAllFunction<AppServices>, services: () => AppServices): HttpHandler {
  let built: HttpHandler | undefined;
  return (request, context) => {
    built ??= httpHandlerOf(fn, services());
    return built(request, context);
  };
}

/**
 * `build` once per services: what a function makes from its services' settings (a metrics
 * source, say) is made at its first run and kept, as the services are.
 */
export function oncePerServices<T>(build: (services: AppServices) => T): (services: AppServices) => T {
  const built = new WeakMap<AppServices, T>();
  return (services) => {
    if (!built.has(services)) built.set(services, build(services));
    return built.get(services) as T;
  };
}
