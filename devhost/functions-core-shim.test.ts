import Module from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFunctionsCore, FUNCTIONS_CORE_MODULE } from './functions-core-shim';
import { entryPointFiles, expandGlob, loadApp } from './load-app';

const fixtureRoot = path.join(__dirname, 'test-fixtures', 'app');
const systemLines: string[] = [];
const core = loadApp(fixtureRoot, (level, category, message) => systemLines.push(`${level} ${category} ${message}`));
const byName = (name: string) => core.registrations().find((registration) => registration.metadata.name === name);

describe('loading an app through the @azure/functions-core shim', () => {
  it('loads every file package.json "main" matches, and only those', () => {
    expect(entryPointFiles(fixtureRoot).map((file) => path.basename(file))).toEqual(['background.js', 'events.js', 'hooks.js', 'http.js']);
    expect(core.registrations().map((registration) => registration.metadata.name).sort()).toEqual(
      ['boom', 'communication-events', 'cookies', 'echo', 'fan-out', 'hooked', 'not-an-object', 'not-found', 'things', 'tick'].sort(),
    );
  });

  it('records HTTP metadata exactly as @azure/functions sends it', () => {
    const things = byName('things');
    const [triggerName, trigger] = Object.entries(things?.metadata.bindings ?? {})[0] ?? [];
    expect(triggerName).toMatch(/^httpTrigger/);
    expect(trigger).toEqual({
      name: triggerName,
      type: 'httpTrigger',
      direction: 'in',
      authLevel: 'function',
      methods: ['GET'],
      route: 'v1/things/{id:int}',
      properties: { supportsDeferredBinding: 'false' },
    });
    expect(things?.metadata.bindings.$return).toMatchObject({ type: 'http', direction: 'out' });
    // app.post / app.get fill in the method; app.http defaults to GET+POST and anonymous.
    const echoTrigger = Object.values(byName('echo')?.metadata.bindings ?? {})[0];
    expect(echoTrigger).toMatchObject({ methods: ['POST'], authLevel: 'anonymous', route: 'v1/echo' });
  });

  it('records timer and queue triggers with their schedule and queue', () => {
    expect(Object.values(byName('tick')?.metadata.bindings ?? {})[0]).toMatchObject({
      type: 'timerTrigger',
      direction: 'in',
      schedule: '0 */5 * * * *',
      runOnStartup: true,
    });
    expect(Object.values(byName('fan-out')?.metadata.bindings ?? {})[0]).toMatchObject({
      type: 'queueTrigger',
      direction: 'in',
      queueName: 'notifications',
      connection: 'AzureWebJobsStorage',
    });
  });

  it('records the handler itself and every hook, and the programming model', () => {
    expect(typeof byName('things')?.handler).toBe('function');
    expect(core.hooks('appStart')).toHaveLength(1);
    expect(core.hooks('appTerminate')).toHaveLength(1);
    expect(core.hooks('preInvocation')).toHaveLength(1);
    expect(core.hooks('postInvocation')).toHaveLength(1);
    expect(core.programmingModel()?.name).toBe('@azure/functions');
    expect(systemLines).toEqual([]);
  });

  it('answers require("@azure/functions-core") with the shim anywhere in the process', () => {
    const requireAnywhere = Module.createRequire(path.join(fixtureRoot, 'functions', 'x.js'));
    expect(requireAnywhere(FUNCTIONS_CORE_MODULE)).toBe(core.api);
  });

  it('closes registration once the app is loaded, like the worker', () => {
    expect(() => core.api.registerFunction({ name: 'late', bindings: {} }, () => undefined)).toThrow(/during app startup/);
  });
});

describe('createFunctionsCore', () => {
  it('refuses duplicate function names and unknown hooks, and disposes hooks', () => {
    const fresh = createFunctionsCore();
    fresh.api.registerFunction({ name: 'Same', bindings: {} }, () => undefined);
    expect(() => fresh.api.registerFunction({ name: 'same', bindings: {} }, () => undefined)).toThrow(/already been registered/);
    expect(() => fresh.api.registerHook('beforeLunch', () => undefined)).toThrow(RangeError);
    const disposable = fresh.api.registerHook('appStart', () => undefined);
    expect(fresh.hooks('appStart')).toHaveLength(1);
    disposable.dispose();
    expect(fresh.hooks('appStart')).toHaveLength(0);
  });
});

describe('expandGlob', () => {
  it('expands *, ? and ** and ignores node_modules', () => {
    const root = path.join(__dirname, 'test-fixtures');
    expect(expandGlob(root, 'app/functions/*.js').map((file) => path.relative(root, file))).toHaveLength(4);
    expect(expandGlob(root, '**/h?oks.js').map((file) => path.relative(root, file))).toEqual([path.join('app', 'functions', 'hooks.js')]);
    expect(expandGlob(root, 'app/functions/missing.js')).toEqual([]);
  });
});
