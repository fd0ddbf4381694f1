import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import { installFunctionsCore, type FunctionsCore, type SystemLogSink } from './functions-core-shim';

/**
 * Loads a function app the way the Node.js worker does: with `@azure/functions-core` available,
 * every file matched by package.json `main` is required once, then registration closes.
 * @returns the shim holding the registrations and hooks the app made.
 */
export function loadApp(appRoot: string, systemLog?: SystemLogSink): FunctionsCore {
  const core = installFunctionsCore(systemLog);
  const requireFromApp = Module.createRequire(path.join(appRoot, 'package.json'));
  for (const file of entryPointFiles(appRoot)) requireFromApp(file);
  core.closeRegistration();
  return core;
}

/** The files package.json `main` names, glob expanded and sorted so loading order is stable. */
export function entryPointFiles(appRoot: string): string[] {
  const packageJsonPath = path.join(appRoot, 'package.json');
  if (!existsSync(packageJsonPath)) throw new Error(`No package.json in ${appRoot}: run the local host from the app's root.`);
  const main = (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { main?: unknown }).main;
  if (typeof main !== 'string' || main.trim() === '') throw new Error('package.json has no "main" entry point.');
  const files = expandGlob(appRoot, main.trim());
  if (files.length === 0) throw new Error(`Found zero files matching the "main" pattern "${main}". Did you build?`);
  return files;
}

/**
 * A small glob expander for the shapes `main` uses (`*`, `?`, `**` per path segment), so the
 * host does not depend on an experimental `fs.glob` or a glob package.
 */
export function expandGlob(root: string, pattern: string): string[] {
  const segments = pattern.replace(/^\.\//, '').split('/').filter((segment) => segment !== '' && segment !== '.');
  const matches = new Set<string>();
  const walk = (directory: string, index: number): void => {
    const segment = segments[index];
    if (segment === undefined) return;
    const last = index === segments.length - 1;
    if (segment === '**') {
      walk(directory, index + 1);
      for (const child of subdirectories(directory)) walk(path.join(directory, child), index);
      return;
    }
    const names = /[*?]/.test(segment) ? listDirectory(directory).filter((name) => globSegment(segment).test(name)) : [segment];
    for (const name of names) {
      const candidate = path.join(directory, name);
      if (last) {
        if (isFile(candidate)) matches.add(candidate);
      } else if (isDirectory(candidate)) {
        walk(candidate, index + 1);
      }
    }
  };
  walk(root, 0);
  return [...matches].sort();
}

function globSegment(segment: string): RegExp {
  const source = segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
  return new RegExp(`^${source}$`);
}

function listDirectory(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

function subdirectories(directory: string): string[] {
  return listDirectory(directory).filter((name) => name !== 'node_modules' && isDirectory(path.join(directory, name)));
}

function isFile(candidate: string): boolean {
  return existsSync(candidate) && statSync(candidate).isFile();
}

function isDirectory(candidate: string): boolean {
  return existsSync(candidate) && statSync(candidate).isDirectory();
}
