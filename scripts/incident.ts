import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm run incident -- <alert-name> [--fired-at <ISO time>]`, run from the repository root: creates
 * `docs/incidents/<date>-<alert-name>.md` from `docs/incidents/TEMPLATE.md` (the record the spec asks
 * for after every page: alert time and date, root cause, resolution steps, follow-up items), filled
 * with the alert's name, tier and runbook from `infra/alerts/*.json`. It never overwrites a record: a
 * second page of the same alert on the same day gets `-2`, `-3`, ...
 */

interface AlertSummary {
  name: string;
  displayName: string;
  tier: string;
  severity: number;
  runbook?: string;
}

export interface IncidentOptions {
  /** The alert's `name` in infra/alerts/*.json. */
  alert: string;
  /** When the alert fired; defaults to `now`. */
  firedAt?: Date;
  now: Date;
  /** The repository root. */
  rootDir: string;
}

export type IncidentResult = { ok: true; file: string } | { ok: false; message: string };

/** The alerts of infra/alerts/*.json by name. */
function readAlerts(rootDir: string): Map<string, AlertSummary> {
  const dir = path.join(rootDir, 'infra/alerts');
  const alerts = new Map<string, AlertSummary>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const json = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { alerts?: AlertSummary[] };
    for (const alert of json.alerts ?? []) alerts.set(alert.name, alert);
  }
  return alerts;
}

/** Creates the incident record; returns its path relative to the root, or why it could not. */
export function createIncidentRecord(options: IncidentOptions): IncidentResult {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(options.alert)) {
    return { ok: false, message: `"${options.alert}" is not an alert name (lower-case words joined by "-")` };
  }
  const alerts = readAlerts(options.rootDir);
  const alert = alerts.get(options.alert);
  if (!alert) {
    const paging = [...alerts.values()].filter((entry) => entry.tier === 'critical').map((entry) => entry.name);
    return { ok: false, message: `unknown alert "${options.alert}"; the paging alerts are: ${paging.join(', ')}` };
  }
  const firedAt = options.firedAt ?? options.now;
  if (Number.isNaN(firedAt.getTime())) return { ok: false, message: '--fired-at is not a valid date and time' };

  const date = firedAt.toISOString().slice(0, 10);
  const dir = path.join(options.rootDir, 'docs/incidents');
  mkdirSync(dir, { recursive: true });
  let file = path.join(dir, `${date}-${alert.name}.md`);
  for (let n = 2; existsSync(file); n += 1) file = path.join(dir, `${date}-${alert.name}-${n}.md`);

  const values: Record<string, string> = {
    alert: alert.name,
    displayName: alert.displayName,
    tier: alert.tier,
    severity: String(alert.severity),
    runbook: alert.runbook ?? 'docs/runbooks/README.md',
    date,
    firedAt: firedAt.toISOString(),
    openedAt: options.now.toISOString(),
  };
  const template = readFileSync(path.join(dir, 'TEMPLATE.md'), 'utf8');
  const record = template.replace(/\{\{(\w+)\}\}/g, (placeholder, key: string) => values[key] ?? placeholder);
  writeFileSync(file, record, { flag: 'wx' });
  return { ok: true, file: path.relative(options.rootDir, file) };
}

/** The command: parses the arguments, creates the record, returns the exit code. */
export function runIncidentCommand(
  argv: readonly string[],
  io: { rootDir: string; now: Date; stdout: (text: string) => void; stderr: (text: string) => void },
): number {
  const usage = 'usage: npm run incident -- <alert-name> [--fired-at <ISO 8601 time>]\n';
  const positional: string[] = [];
  let firedAt: Date | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? '';
    if (arg === '--fired-at') {
      firedAt = new Date(argv[index + 1] ?? '');
      index += 1;
    } else if (arg === '--help' || arg === '-h') {
      io.stdout(usage);
      return 0;
    } else {
      positional.push(arg);
    }
  }
  const [alert] = positional;
  if (!alert || positional.length > 1) {
    io.stderr(usage);
    return 2;
  }
  const result = createIncidentRecord({ alert, now: io.now, rootDir: io.rootDir, ...(firedAt ? { firedAt } : {}) });
  if (!result.ok) {
    io.stderr(`incident: ${result.message}\n`);
    return 1;
  }
  io.stdout(`${result.file}\n`);
  return 0;
}

// Run as a script (not when a test imports this module).
if (typeof module !== 'undefined' && require.main === module) {
  process.exitCode = runIncidentCommand(process.argv.slice(2), {
    rootDir: process.cwd(),
    now: new Date(),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}
