import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from './bench-host';
import type { ColdStartScenario } from './cold-start/measure';

const run = promisify(execFile);
const PROBE = path.join(__dirname, 'cold-start', 'probe.js');
/** V8's sampling interval, µs: a start of ~100 ms gets ~1,000 samples (the default 1 ms would give 100). */
const SAMPLING_INTERVAL_US = 100;

/** Self time of one origin of code (a package, a folder of the app, a part of Node) during a start. */
export interface ProfileOrigin {
  origin: string;
  /** Mean over the profiled starts, ms. */
  selfMs: number;
}

export interface StartProfile {
  label: string;
  starts: number;
  /** Mean profiled time (first sample to last), ms: less than the probe's figure, which counts from the process's start. */
  profiledMs: number;
  origins: ProfileOrigin[];
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Source maps of the files code ran from, read once each (the bundle's maps its code back to `shared/`, `zod`…). */
function sourceMaps(): (file: string) => SourceMap | undefined {
  const maps = new Map<string, SourceMap | undefined>();
  return (file) => {
    if (!maps.has(file)) {
      const mapFile = `${file}.map`;
      maps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMapPayload) : undefined);
    }
    return maps.get(file);
  };
}

/** `zod`, `@azure/functions` from a path inside node_modules. */
function packageOf(file: string): string | undefined {
  const at = file.lastIndexOf('node_modules/');
  if (at === -1) return undefined;
  const [scope, name] = file.slice(at + 'node_modules/'.length).split('/');
  return scope?.startsWith('@') ? `${scope}/${name ?? ''}` : scope;
}

const PROBE_ORIGIN = 'the probe and its Functions core shim (the same in every scenario)';

/** Where a project file belongs: its package, or its folder in the project (`shared/telemetry`, `shared/config.ts`). */
function projectOrigin(file: string): string {
  const pkg = packageOf(file);
  if (pkg) return `package \`${pkg}\``;
  const relative = path.relative(PROJECT_ROOT, file).split(path.sep).join('/').replace(/^dist\//, '');
  if (relative.startsWith('bench/') || relative.startsWith('devhost/')) return PROBE_ORIGIN;
  const [top, second] = relative.split('/');
  return top === 'shared' && second ? `app \`shared/${second}\`` : `app \`${top ?? relative}\``;
}

/**
 * The origin of a source a map names: a file of the project or of node_modules, or a package's own
 * bundler URL (`webpack://@azure/functions/src/app.ts`, kept by the package's source map).
 */
function sourceOrigin(source: string, mappedFile: string): string {
  if (source.startsWith('file:')) return projectOrigin(fileURLToPath(source));
  const bundlerUrl = /^[a-z-]+:\/\/\/?((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (bundlerUrl?.[1]) return `package \`${bundlerUrl[1]}\``;
  return projectOrigin(path.resolve(path.dirname(mappedFile), source));
}

/** The origin a sampled function is counted under. */
function originOf(frame: CpuProfile['nodes'][number]['callFrame'], mapOf: (file: string) => SourceMap | undefined): string {
  const { url, functionName, lineNumber, columnNumber } = frame;
  if (url === '') return functionName.startsWith('(') ? `V8 ${functionName}` : `Node native \`${functionName || '(anonymous)'}\``;
  if (url.startsWith('node:internal/modules/')) return 'Node: loading and compiling modules (`node:internal/modules`)';
  if (url.startsWith('node:internal/bootstrap/')) return "Node: its own bootstrap (`node:internal/bootstrap`)";
  if (url.startsWith('node:')) return `Node: \`${url.replace(/^node:(internal\/)?/, 'node:').split('/')[0]}\``;
  if (!url.startsWith('file:')) return url;
  const file = fileURLToPath(url);
  if (projectOrigin(file) === PROBE_ORIGIN) return PROBE_ORIGIN;
  const map = mapOf(file);
  if (map && lineNumber >= 0) {
    const entry = map.findEntry(lineNumber, columnNumber) as { originalSource?: string };
    if (entry.originalSource) return sourceOrigin(entry.originalSource, file);
    // Code with no mapping: the bundle's own glue, and its top-level code (every bundled module's top level).
    return `\`${path.relative(PROJECT_ROOT, file)}\` top level and glue`;
  }
  return projectOrigin(file);
}

/** Self time by origin of one V8 CPU profile, ms; each sample is charged the time until the next one. */
function selfTimeByOrigin(profile: CpuProfile, mapOf: (file: string) => SourceMap | undefined): Map<string, number> {
  const origins = new Map<number, string>(profile.nodes.map((node) => [node.id, originOf(node.callFrame, mapOf)]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const origin = origins.get(id) ?? 'unknown';
    self.set(origin, (self.get(origin) ?? 0) + (profile.timeDeltas[index + 1] ?? 0) / 1000);
  });
  return self;
}

/**
 * Where a start's time goes: `starts` extra starts of `scenario` under V8's CPU profiler (after one
 * unprofiled start that fills a warm scenario's compile cache), self time by origin, mean over the
 * starts. Not part of the timed figures: the profiler slows a start; its shares are what it tells.
 */
export async function profileColdStart(scenario: ColdStartScenario, options: { starts: number; tmpDir: string }): Promise<StartProfile> {
  const dir = mkdtempSync(path.join(options.tmpDir, 'profile-'));
  try {
    const cacheDir = path.join(dir, 'compile-cache');
    mkdirSync(cacheDir);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...scenario.env };
    const probeArgs = [PROBE, scenario.appRoot, ...scenario.entries];
    if (scenario.compileCache === 'warm') {
      env.NODE_COMPILE_CACHE = cacheDir;
      await run(process.execPath, probeArgs, { env, maxBuffer: 16 * 1024 ** 2 });
    }
    const mapOf = sourceMaps();
    const total = new Map<string, number>();
    let profiledMs = 0;
    for (let start = 0; start < options.starts; start += 1) {
      const profileDir = path.join(dir, `profile-${start}`);
      if (scenario.compileCache === 'empty') env.NODE_COMPILE_CACHE = mkdtempSync(path.join(dir, 'empty-cache-'));
      await run(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-interval=${SAMPLING_INTERVAL_US}`, ...probeArgs], {
        env,
        maxBuffer: 16 * 1024 ** 2,
      });
      const [file] = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'));
      if (!file) throw new Error(`the profiled start of ${scenario.label} wrote no profile`);
      const profile = JSON.parse(readFileSync(path.join(profileDir, file), 'utf8')) as CpuProfile;
      for (const [origin, ms] of selfTimeByOrigin(profile, mapOf)) total.set(origin, (total.get(origin) ?? 0) + ms);
      profiledMs += profile.timeDeltas.reduce((sum, delta) => sum + delta, 0) / 1000;
    }
    return {
      label: scenario.label,
      starts: options.starts,
      profiledMs: profiledMs / options.starts,
      origins: [...total].map(([origin, ms]) => ({ origin, selfMs: ms / options.starts })).sort((a, b) => b.selfMs - a.selfMs),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
