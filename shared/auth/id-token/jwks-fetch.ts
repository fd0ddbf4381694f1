import type { FetchImplementation, JSONWebKeySet } from './jose';
import { IdpUnavailableError, type ProviderStatus } from './provider-failure';

/** A JWKS is a few KiB; anything far larger is not one, and is not read into memory. */
export const DEFAULT_MAX_JWKS_BYTES = 256 * 1024;

export interface JwksFetchOptions {
  /** The transport; tests may pass their own. */
  fetch?: typeof fetch;
  maxBodyBytes?: number;
  /** Called with every key set that passed the checks, just before jose receives it. */
  onKeySet: (jwks: JSONWebKeySet) => void;
}

/**
 * The `customFetch` given to jose's remote JWKS. It does jose's fetch itself so that every way the
 * provider can fail ends as an `IdpUnavailableError` naming how (status, timeout, bad body), which
 * jose passes through unchanged; jose only ever sees a 200 answer with a well-formed key set.
 * Redirects are refused: the JWKS URL is configuration and must not be moved by the network.
 */
export function createJwksFetch(options: JwksFetchOptions): FetchImplementation {
  const transport = options.fetch ?? fetch;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_JWKS_BYTES;
  return async (url, init) => {
    let response: Response;
    try {
      response = await transport(url, { ...init, redirect: 'manual' });
    } catch (error) {
      throw new IdpUnavailableError(transportFailure(error), { cause: error });
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      const status: ProviderStatus = response.status > 0 ? `${response.status}` : 'redirect';
      throw new IdpUnavailableError(status, { cause: new Error(`JWKS endpoint answered HTTP ${response.status}`) });
    }
    const text = await readBodyText(response, maxBodyBytes);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // Not the parser's error: its message quotes the body, which has no business in our logs.
      throw new IdpUnavailableError('invalid_body', { cause: new Error('JWKS body is not JSON') });
    }
    if (!isJwkSet(json)) {
      throw new IdpUnavailableError('invalid_jwks', { cause: new Error('JWKS body is not {"keys": [objects]}') });
    }
    options.onKeySet(json);
    return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

/** The body as UTF-8 text, read only up to `maxBodyBytes`; every failure an `IdpUnavailableError`. */
export async function readBodyText(response: Response, maxBodyBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBodyBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new IdpUnavailableError('body_too_large', { cause: new Error(`JWKS body of ${declared} bytes`) });
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBodyBytes) {
        await reader.cancel().catch(() => undefined);
        throw new IdpUnavailableError('body_too_large', { cause: new Error(`JWKS body over ${maxBodyBytes} bytes`) });
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof IdpUnavailableError) throw error;
    throw new IdpUnavailableError(transportFailure(error), { cause: error });
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch (error) {
    throw new IdpUnavailableError('invalid_body', { cause: error });
  }
}

/** jose's fetch signal is an `AbortSignal.timeout`, which rejects with a `TimeoutError`. */
export function transportFailure(error: unknown): ProviderStatus {
  const name = error instanceof Error || error instanceof DOMException ? error.name : '';
  return name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network_error';
}

/** The same test jose applies (`isJwkSet`), so a set that passes here never fails jose's. */
function isJwkSet(value: unknown): value is JSONWebKeySet {
  if (!isPlainObject(value)) return false;
  const keys = (value as { keys?: unknown }).keys;
  return Array.isArray(keys) && keys.every(isPlainObject);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Object.prototype.toString.call(value) !== '[object Object]') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}
