import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../shared/http/client-address';
import { ROOT } from './alert-catalogue';

/**
 * The per-address sign-in limits need the client's address, and the deployment
 * must say how many proxies wrote `X-Forwarded-For`. In the deployed topology the only proxy is
 * the Container Apps ingress, which appends the address it received the request from (Azure
 * Container Apps docs, "Ingress", HTTP headers: the rightmost entry is the one it provides); the
 * Functions host copies the request's headers into the worker's invocation unchanged
 * (azure-functions-host, `GrpcMessageConversionExtensions.ToRpcHttp`; it has no forwarded-headers
 * handling of its own). So `TRUST_PROXY_HOPS` is 1, and the infrastructure must set it: the app's
 * default, 0, is for a process nothing stands in front of.
 */

const read = (relative: string): string => readFileSync(path.join(ROOT, relative), 'utf8');
const mainBicep = read('infra/main.bicep');

function filesUnder(dir: string, ending: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return filesUnder(full, ending);
    return name.endsWith(ending) ? [full] : [];
  });
}

/** The `param trustProxyHops` declaration: its default and its `@minValue`. */
function trustParam(text: string): { defaultValue?: number; minValue?: number } {
  const lines = text.split('\n');
  const index = lines.findIndex((line) => /^param trustProxyHops int\b/.test(line));
  if (index < 0) return {};
  const declared = /= (\d+)\s*$/.exec(lines[index] ?? '');
  let minValue: number | undefined;
  for (let back = index - 1; back >= 0 && /^@/.test(lines[back] ?? ''); back -= 1) {
    const min = /^@minValue\((\d+)\)/.exec(lines[back] ?? '');
    if (min) minValue = Number(min[1]);
  }
  return { ...(declared ? { defaultValue: Number(declared[1]) } : {}), ...(minValue === undefined ? {} : { minValue }) };
}

/** Proxy resources that would put another hop in front of the Container Apps ingress. */
const FRONT_PROXIES = /'Microsoft\.(?:Cdn\/profiles|Network\/frontDoors|Network\/applicationGateways|ApiManagement\/service)@/i;

describe('TRUST_PROXY_HOPS in the deployment (infra/)', () => {
  it('is one of the app settings main.bicep gives the function app, from the trustProxyHops parameter', () => {
    const settings = /settings: \{([\s\S]*?)\n    \}/.exec(mainBicep.slice(mainBicep.indexOf("module functionApp 'modules/function-app.bicep'")))?.[1] ?? '';
    expect(settings).toMatch(/^\s*TRUST_PROXY_HOPS: string\(trustProxyHops\)$/m);
  });

  it('defaults to one hop and cannot be deployed as 0 (which would put every client in one shared bucket)', () => {
    const param = trustParam(mainBicep);
    expect(param.defaultValue).toBe(1);
    expect(param.minValue).toBeGreaterThanOrEqual(1);
  });

  it('is 1 in the azd parameter file unless the environment says otherwise, and no example environment turns it off', () => {
    const parameters = JSON.parse(read('infra/main.parameters.json')) as { parameters: Record<string, { value: unknown }> };
    expect(parameters.parameters['trustProxyHops']?.value).toBe('${TRUST_PROXY_HOPS=1}');
    for (const file of filesUnder(path.join(ROOT, 'infra/environments'), '.env.example')) {
      const set = /^TRUST_PROXY_HOPS=(.*)$/m.exec(readFileSync(file, 'utf8'))?.[1];
      if (set !== undefined) expect(Number(set), path.relative(ROOT, file)).toBeGreaterThanOrEqual(1);
    }
  });

  it('counts the proxies there are: one Container Apps ingress, and nothing deployed in front of it', () => {
    const functionApp = read('infra/modules/function-app.bicep');
    expect(functionApp).toMatch(/kind: 'functionapp'/);
    expect(functionApp.match(/\bingress: \{/g)).toHaveLength(1);
    expect(functionApp).toMatch(/ingress: \{\s*external: true/);
    const fronted = filesUnder(path.join(ROOT, 'infra'), '.bicep').filter((file) => FRONT_PROXIES.test(readFileSync(file, 'utf8')));
    // A Front Door or gateway in front adds a hop: raise trustProxyHops's default with it.
    expect(fronted.map((file) => path.relative(ROOT, file))).toEqual([]);
  });

  it('makes the app read the address the ingress appended, whatever the client put in front of it', () => {
    const hops = trustParam(mainBicep).defaultValue ?? 0;
    // What the worker receives: the client's own claim, then the ingress's entry for the connection.
    expect(clientAddress('203.0.113.1, 198.51.100.23', hops)).toBe('198.51.100.23');
    expect(clientAddress('198.51.100.23', hops)).toBe('198.51.100.23');
    expect(clientAddress('2001:db8::1', hops)).toBe('2001:db8::1');
    // The app's own default would have no address at all.
    expect(clientAddress('198.51.100.23', 0)).toBeNull();
  });
});
