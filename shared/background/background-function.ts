import type { InvocationContext, Timer } from '@azure/functions';
import type { Config } from '../config';
import type { BackgroundDeps } from './background-handler';

/**
 * The one declaration of each timer, queue and Event Grid function: its name, its trigger, and its
 * work, which takes its services as a parameter. Registration wraps the work in
 * `backgroundHandler` (trace id, one error line and exception per failure, the shutdown's
 * tracking); a function file only declares it.
 */
interface BackgroundFunctionBase<TServices> {
  /** The function name the host registers, on every error line. */
  name: string;
  /**
   * The logger, telemetry and shutdown its lines and tracking use, out of the services; default:
   * the services' own. The `service` of every line when not the logger's own.
   */
  logsWith?: { deps: (services: TServices) => BackgroundDeps; service: string };
}

/** A timer: its NCRONTAB schedule read from the settings at registration. */
export interface TimerFunction<TServices> extends BackgroundFunctionBase<TServices> {
  kind: 'timer';
  schedule: (config: Config) => string;
  handler: (services: TServices, timer: Timer, context: InvocationContext) => Promise<void>;
}

/** A storage-queue function. */
export interface QueueFunction<TServices> extends BackgroundFunctionBase<TServices> {
  kind: 'queue';
  queueName: string;
  /** The app setting naming the storage account (`AzureWebJobsStorage`). */
  connection: string;
  handler: (services: TServices, message: unknown, context: InvocationContext) => Promise<void>;
}

/** An Event Grid function. */
export interface EventGridFunction<TServices> extends BackgroundFunctionBase<TServices> {
  kind: 'event-grid';
  handler: (services: TServices, event: unknown, context: InvocationContext) => Promise<void>;
}

export type BackgroundFunction<TServices> = TimerFunction<TServices> | QueueFunction<TServices> | EventGridFunction<TServices>;
