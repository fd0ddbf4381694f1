import './require-node';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { LOCAL_SETTINGS_FILE } from './local-settings';

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

ensureLocalSettings();
const func = findFunc();
if (func) {
  note('running the Azure Functions host (func start)');
  const child = spawn(func, ['start'], { stdio: 'inherit', shell: isWindows });
  // Ctrl-C already reaches func through the terminal's process group; only a targeted SIGTERM needs passing on.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  note("Azure Functions Core Tools (func) not available; running the project's local host (see devhost/README.md)");
  require('./main');
}
