/**
 * The worker thread that owns the telemetry SDK (Application Insights, or OpenTelemetry over
 * OTLP). Started by `worker-telemetry.ts`, which hands it the settings as `workerData` and the
 * facade's items through `parentPort`, as pino's transports do: loading the SDK (thousands of
 * modules, over half a second) and running its exporters happen here, never on the main thread
 * that answers the host and serves requests.
 *
 * Items that arrive while the SDK loads wait in the port, in order. If the backend fails to load,
 * the worker says so (`failed`) and sends telemetry to the log instead, its lines relayed to the
 * app's log. A flush request is answered once the backend flushed (its exporters give up after
 * their own time limit); the main thread decides how long it waits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runWithLogContext } from '../logging/log-context';
import { createLogger, errorFields } from '../logging/logger';
import { withoutSecrets } from './deferred-telemetry';
import { loadTelemetryBackend } from './load-backend';
import { createLogOnlyTelemetry } from './log-only';
import type { Telemetry } from './telemetry';
import type { FromWorker, TelemetryItem, TelemetryWorkerSettings, ToWorker } from './worker-protocol';

const port = parentPort;
if (!port) throw new Error('telemetry-worker.js runs as a worker thread only');
const settings = workerData as TelemetryWorkerSettings;
const send = (message: FromWorker): void => port.postMessage(message);

// Lines go to the main thread, which writes them to the app's log in their request chain's context.
const logger = createLogger({
  service: settings.serviceName,
  level: settings.logLevel,
  destination: { write: (line: string) => send({ kind: 'line', line }) },
});

let received = 0;
const waiting: ToWorker[] = [];
let backend: Telemetry | undefined;

function track(telemetry: Telemetry, item: TelemetryItem): void {
  switch (item.type) {
    case 'event':
      return telemetry.trackEvent(item.name, item.properties as never);
    case 'metric':
      return telemetry.trackMetric(item.name, item.value, item.properties);
    case 'exception': {
      const error = new Error(item.error.message);
      error.name = item.error.name;
      error.stack = item.error.stack;
      return telemetry.trackException(error, item.properties);
    }
    case 'dependency':
      return telemetry.trackDependency(item.dependency);
  }
}

function handle(telemetry: Telemetry, message: ToWorker): void {
  if (message.kind === 'items') {
    for (const { item, context } of message.items) runWithLogContext(context, () => track(telemetry, item));
    return;
  }
  const upTo = received;
  void telemetry.flush().then(() => send({ kind: 'flushed', id: message.id, received: upTo }));
}

port.on('message', (message: ToWorker) => {
  if (message.kind === 'items') received += message.items.length;
  if (backend) handle(backend, message);
  else waiting.push(message);
});

async function start(): Promise<void> {
  let telemetry: Telemetry;
  try {
    telemetry =
      settings.backend === 'application-insights'
        ? await loadTelemetryBackend({ backend: settings.backend, connectionString: settings.connectionString, serviceName: settings.serviceName, logger })
        : await loadTelemetryBackend({
            backend: settings.backend,
            endpoint: settings.endpoint,
            serviceName: settings.serviceName,
            resourceServiceName: settings.resourceServiceName,
            logger,
          });
    send({ kind: 'ready', backend: settings.backend });
  } catch (error) {
    const { stack, errorType } = errorFields(error);
    send({ kind: 'failed', backend: settings.backend, errorType, stack: withoutSecrets(stack, settings.secrets) });
    telemetry = createLogOnlyTelemetry({ logger });
    send({ kind: 'ready', backend: 'log-only' });
  }
  // Replayed in one synchronous run: the port delivers nothing in between.
  for (const message of waiting.splice(0)) handle(telemetry, message);
  backend = telemetry;
}

void start();
