import './require-node';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../shared/config';
import { ensureFunctionsHostStorage } from './functions-host-storage';
import { LOCAL_SETTINGS_FILE, LocalSettingsError, readLocalSettings } from './local-settings';
import { portHolder, portTakenMessage } from './port-holder';
import { hasNodeRuntimeFlags, NODE_RUNTIME_ARGUMENTS, NODE_RUNTIME_FLAGS } from '../shared/lifecycle/node-runtime-flags';

/**
 * `npm start`: the Azure Functions host when Core Tools work on this machine, else the project's
 * local host (devhost/). Its notes go to stderr; stdout stays for the hosts' log lines.
 */
const appRoot = process.cwd();
const isWindows = process.platform === 'win32';

function note(message: string): void {
  process.stderr.write(`npm start: ${message}\n`);
}

function ensureLocalSettings(): void {
  const target = path.join(appRoot, LOCAL_SETTINGS_FILE);
  const example = path.join(appRoot, 'local.settings.example.json');
  if (existsSync(target)) return;
  if (existsSync(example)) {
    copyFileSync(example, target);
    note(`created ${LOCAL_SETTINGS_FILE} from local.settings.example.json`);
  } else {
    note(`no ${LOCAL_SETTINGS_FILE}; using the environment only`);
  }
}

/** The `func` that actually runs (`func --version` exits 0): the project's copy first, then PATH. */
function findFunc(): string | undefined {
  const candidates = [path.join(appRoot, 'node_modules', '.bin', isWindows ? 'func.cmd' : 'func'), 'func'];
  for (const candidate of candidates) {
    if (candidate !== 'func' && !existsSync(candidate)) continue;
    const probe = spawnSync(candidate, ['--version'], { stdio: 'ignore', timeout: 30_000, shell: isWindows });
    if (probe.status === 0) return candidate;
  }
  return undefined;
}

/**
 * `func start` as the README promises it: on the port `PORT` names (the environment first, then
 * local.settings.json; `func` itself reads only its `Host.LocalHttpPort` or `--port`), with Azurite started
 * for it when the storage setting is the development storage.
 */
async function runFunctionsHost(func: string, settings: Readonly<Record<string, string>>): Promise<void> {
  const setting = (name: string): string | undefined => process.env[name] ?? settings[name];
  let storage;
  try {
    storage = await ensureFunctionsHostStorage(appRoot, setting('AzureWebJobsStorage'), note);
  } catch (error) {
    note(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const port = setting('PORT');
  note(`running the Azure Functions host (func start${port ? ` --port ${port}` : ''})`);
  // The Node worker's flags as on Azure (the same app setting), unless the settings name their own.
  const languageWorkerArguments = setting('languageWorkers__node__arguments') ?? NODE_RUNTIME_ARGUMENTS;
  const child = spawn(func, ['start', ...(port ? ['--port', port] : [])], {
    stdio: 'inherit',
    shell: isWindows,
    env: { ...process.env, languageWorkers__node__arguments: languageWorkerArguments },
  });
  // Ctrl-C already reaches func and Azurite through the terminal's process group; only a targeted SIGTERM needs passing on.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('exit', (code, signal) => {
    void (storage?.stop() ?? Promise.resolve()).then(() => process.exit(code ?? (signal ? 1 : 0)));
  });
}

/** The settings file's Values; a broken file ends the process here with its one line (file, line, column). */
function localSettings(): Record<string, string> {
  try {
    return readLocalSettings(appRoot);
  } catch (error) {
    if (!(error instanceof LocalSettingsError)) throw error;
    note(`cannot start: ${error.message}`);
    process.exit(1);
  }
}

/**
 * The port the app will listen on, as both hosts read it (the environment over local.settings.json, the
 * settings module's default), or undefined when `PORT` is 0 (a free one) or the settings are invalid: the
 * app itself then ends the start with its own config_invalid line.
 */
function appPort(settings: Readonly<Record<string, string>>): number | undefined {
  try {
    const port = loadConfig({ ...settings, ...process.env }).port;
    return port === 0 ? undefined : port;
  } catch (error) {
    if (error instanceof ConfigError) return undefined;
    throw error;
  }
}

/**
 * The local host in a process of its own started with the app's Node flags (this one was started
 * without them, and flags are read when a process starts); its exit code is this one's.
 */
function runLocalHostWithFlags(): void {
  const child = spawn(process.execPath, [...NODE_RUNTIME_FLAGS, path.join(__dirname, 'main.js')], { stdio: 'inherit' });
  // Ctrl-C reaches the child through the terminal's process group; only a targeted SIGTERM needs passing on.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

async function main(): Promise<void> {
  ensureLocalSettings();
  const settings = localSettings();
  // Before anything starts (Azurite, func, the local host): a port already served ends the start here.
  const port = appPort(settings);
  if (port !== undefined) {
    const holder = await portHolder(port);
    if (holder !== 'free') {
      note(portTakenMessage(port, holder));
      process.exit(1);
    }
  }
  const func = findFunc();
  if (func) {
    await runFunctionsHost(func, settings);
  } else {
    note("Azure Functions Core Tools (func) not available; running the project's local host (see devhost/README.md)");
    if (hasNodeRuntimeFlags()) {
      // Loaded only when func is missing: the local host (and what it imports) never loads beside func.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('./main');
    } else {
      runLocalHostWithFlags();
    }
  }
}

void main();
