/**
 * `npm run infra:build`: restores the pinned Bicep CLI from NuGet (scripts/bicep-cli.ts), compiles
 * infra/main.bicep into .tools/infra/main.json and lints every .bicep file under infra/ with the
 * default rules. Any error or warning of either fails it (exit 1).
 *
 * Without the .NET SDK it prints one line saying what it skipped: exit 0 on a developer's machine,
 * exit 1 under CI=true, where a compile that did not run must not pass for one that did.
 */
import path from 'node:path';
import { bicepFiles, bicepVersion, buildMain, COMPILED_TEMPLATE, formatDiagnostic, inCi, lintAll, restoreBicep, ROOT, type BicepDiagnostic } from './bicep-cli';

/** `1 warning`, `0 warnings`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function main(): number {
  const files = bicepFiles();
  let cli;
  try {
    cli = restoreBicep();
  } catch (error) {
    process.stderr.write(`infra:build: ${(error as Error).message}\n`);
    return 1;
  }
  if (!cli.available) {
    const ci = inCi();
    process.stderr.write(
      `infra:build: ${cli.reason}; skipped restoring Bicep CLI ${bicepVersion()}, bicep build of infra/main.bicep and bicep lint of ${files.length} files` +
        `${ci ? ' (CI=true: failing, the compile is required here)' : ''}\n`,
    );
    return ci ? 1 : 0;
  }

  const build = buildMain(cli.bicep);
  const lint = lintAll(cli.bicep);
  // The build reports the modules' diagnostics as well as main's, and so does lint: each once.
  const seen = new Map<string, BicepDiagnostic>();
  for (const d of [...build.diagnostics, ...lint.diagnostics]) seen.set(formatDiagnostic(d), d);
  const all = [...seen.values()];
  for (const d of all) process.stderr.write(`${formatDiagnostic(d)}\n`);
  const errors = all.filter((d) => d.level === 'Error').length;
  const warnings = all.filter((d) => d.level === 'Warning').length;
  const ok = build.ok && lint.ok && errors === 0 && warnings === 0;
  process.stdout.write(
    `infra:build: Bicep CLI ${cli.version}: ${files.length} files, ${count(errors, 'error')}, ${count(warnings, 'warning')}` +
      (build.ok ? `; compiled template ${path.relative(ROOT, COMPILED_TEMPLATE)}\n` : '; infra/main.bicep did not compile\n'),
  );
  return ok ? 0 : 1;
}

process.exitCode = main();
