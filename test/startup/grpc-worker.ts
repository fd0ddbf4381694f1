import { spawn } from 'node:child_process';
import * as grpc from '@grpc/grpc-js';
import { ROOT } from './worker-load';

/**
 * The Functions host's side of the worker's gRPC channel, and a worker that sequences its messages
 * as the Azure Functions Node.js worker does (azure-functions-nodejs-worker `setupEventStream` and
 * `terminateWorker`, read from its source): one bidirectional `EventStream` over `@grpc/grpc-js`
 * (the library the worker uses); each incoming message is handled without waiting for the one
 * before it; an invocation's answer is written to the stream once its handler and the
 * postInvocation hooks are done; `workerTerminate` runs the `appTerminate` hooks, then ends the
 * stream and calls `process.exit(0)` at once, so an answer gRPC has not written by then is lost.
 * Messages are JSON here rather than the host's protobuf: what matters is when they are written.
 */

/** The method the worker's client opens (`AzureFunctionsRpcMessages.FunctionRpc/EventStream`). */
const EVENT_STREAM = '/AzureFunctionsRpcMessages.FunctionRpc/EventStream';

export type StreamingMessage = Record<string, unknown> & { requestId?: string };

const serialize = (message: StreamingMessage): Buffer => Buffer.from(JSON.stringify(message));
const deserialize = (bytes: Buffer): StreamingMessage => JSON.parse(bytes.toString('utf8')) as StreamingMessage;

export interface GrpcHost {
  address: string;
  /** Every message the worker wrote, in order. */
  received: StreamingMessage[];
  /** Resolves with the worker's stream once it opened it. */
  connected: Promise<grpc.ServerDuplexStream<StreamingMessage, StreamingMessage>>;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 for one worker's event stream. */
export async function startGrpcHost(): Promise<GrpcHost> {
  const server = new grpc.Server();
  const received: StreamingMessage[] = [];
  let onConnected: (stream: grpc.ServerDuplexStream<StreamingMessage, StreamingMessage>) => void = () => undefined;
  const connected = new Promise<grpc.ServerDuplexStream<StreamingMessage, StreamingMessage>>((resolve) => (onConnected = resolve));
  server.register<StreamingMessage, StreamingMessage>(
    EVENT_STREAM,
    (stream: grpc.ServerDuplexStream<StreamingMessage, StreamingMessage>) => {
      stream.on('data', (message: StreamingMessage) => received.push(message));
      // The worker ends its side right before it exits; a cut connection is an ended stream too.
      stream.on('end', () => stream.end());
      stream.on('error', () => undefined);
      onConnected(stream);
    },
    serialize,
    deserialize,
    'bidi',
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    address: `127.0.0.1:${port}`,
    received,
    connected,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 2_000).unref();
      }),
  };
}

export interface GrpcWorker {
  /** Resolves with how the process ended and its stdout lines. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string[]; stderr: string }>;
  /** Resolves once the app is loaded and its appStart hooks ran (the worker answered the host). */
  loaded: Promise<void>;
  /** The stdout lines so far. */
  stdout(): string[];
}

/**
 * Runs the built app in a worker process connected to `hostAddress`: `@azure/functions-core`
 * provided, every file of package.json `main` required, `appStart` hooks run, then the messages
 * of the event stream handled as the Node.js worker handles them.
 */
export function spawnGrpcWorker(hostAddress: string, env: Record<string, string>): GrpcWorker {
  const script = `
    const path = require('node:path');
    const grpc = require('@grpc/grpc-js');
    const { HttpRequest } = require('@azure/functions');
    const root = ${JSON.stringify(ROOT)};
    const { installFunctionsCore } = require(path.join(root, 'dist/devhost/functions-core-shim.js'));
    const { entryPointFiles } = require(path.join(root, 'dist/devhost/load-app.js'));
    const { createHookRunner, createInvocationContext } = require(path.join(root, 'dist/devhost/invocation.js'));
    const { invocationTraceContext } = require(path.join(root, 'dist/devhost/invocation-trace.js'));
    const { toHttpResponse } = require(path.join(root, 'dist/devhost/http-response.js'));
    const core = installFunctionsCore(() => undefined);
    for (const file of entryPointFiles(root)) require(file);
    core.closeRegistration();
    const hooks = createHookRunner(core, root);
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const serialize = (message) => Buffer.from(JSON.stringify(message));
    const deserialize = (bytes) => JSON.parse(bytes.toString('utf8'));

    async function invoke(message) {
      const invocation = message.invocationRequest;
      const registration = core.registrations().find((candidate) => candidate.metadata.name === invocation.functionId);
      const request = new HttpRequest({
        method: invocation.method,
        url: invocation.url,
        headers: invocation.headers,
        body: invocation.body === undefined ? undefined : { string: invocation.body },
        query: {},
        params: {},
      });
      const context = createInvocationContext({
        registration,
        invocationId: invocation.invocationId,
        traceContext: invocationTraceContext(),
        logger: quiet,
      });
      let answer;
      try {
        const response = toHttpResponse(await hooks.invoke(registration.handler, context, [request]));
        answer = { invocationId: invocation.invocationId, status: response.status, body: await response.text() };
      } catch (error) {
        answer = { invocationId: invocation.invocationId, failure: String(error) };
      }
      stream.write({ requestId: message.requestId, invocationResponse: answer });
    }

    // The worker's terminateWorker: the hooks, then the stream ended and the process exited at once.
    async function terminate() {
      await hooks.appTerminate();
      stream.end();
      process.exit(0);
    }

    let stream;
    (async () => {
      await hooks.appStart();
      const client = new grpc.Client(${JSON.stringify(hostAddress)}, grpc.credentials.createInsecure());
      stream = client.makeBidiStreamRequest(${JSON.stringify(EVENT_STREAM)}, serialize, deserialize);
      stream.on('data', (message) => {
        if (message.invocationRequest) void invoke(message);
        if (message.workerTerminate) void terminate();
      });
      stream.on('error', () => undefined);
      stream.write({ startStream: { workerId: 'worker-terminate-test' } });
      process.stderr.write('LOADED\\n');
    })();`;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let onLoaded: () => void = () => undefined;
  const loaded = new Promise<void>((resolve) => (onLoaded = resolve));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (/^LOADED$/m.test(stderr)) onLoaded();
  });
  const lines = (): string[] => stdout.split('\n').filter((line) => line !== '');
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string[]; stderr: string }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout: lines(), stderr })),
  );
  return { ended, loaded, stdout: lines };
}
