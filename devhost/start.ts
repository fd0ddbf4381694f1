import './require-node';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { ensureFunctionsHostStorage } from './functions-host-storage';
import { LOCAL_SETTINGS_FILE, readLocalSettings } from './local-settings';

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
async function runFunctionsHost(func: string): Promise<void> {
  const settings = readLocalSettings(appRoot);
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
  const child = spawn(func, ['start', ...(port ? ['--port', port] : [])], { stdio: 'inherit', shell: isWindows });
  // Ctrl-C already reaches func and Azurite through the terminal's process group; only a targeted SIGTERM needs passing on.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('exit', (code, signal) => {
    void (storage?.stop() ?? Promise.resolve()).then(() => process.exit(code ?? (signal ? 1 : 0)));
  });
}

ensureLocalSettings();
const func = findFunc();
if (func) {
  void runFunctionsHost(func);
} else {
  note("Azure Functions Core Tools (func) not available; running the project's local host (see devhost/README.md)");
  // Loaded only when func is missing: the local host (and what it imports) never loads beside func.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('./main');
}
