/**
 * `jose` 6 ships as an ES module only, and this project compiles to CommonJS with `module: Node16`,
 * where TypeScript refuses a static `import ... from 'jose'` (TS1479). A dynamic `import()` works on
 * every Node version the app supports, so every runtime use of jose goes through `loadJose()`.
 */
export type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });

export type {
  CompactJWSHeaderParameters,
  CryptoKey,
  FetchImplementation,
  FlattenedJWSInput,
  JSONWebKeySet,
  JWK,
  JWTPayload,
  JWTVerifyGetKey,
} from 'jose' with { 'resolution-mode': 'import' };

let loading: Promise<Jose> | undefined;

/** The jose module, loaded once per process. */
export function loadJose(): Promise<Jose> {
  loading ??= import('jose');
  return loading;
}
