import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in identity provider on 127.0.0.1: one RS256 key, its JWKS, and ID tokens signed with it. */
export interface BenchIdentityProvider {
  issuer: string;
  audience: string;
  jwksUri: string;
  /** A fresh ID token for `subject`, valid for an hour. */
  idToken(subject: string): string;
  close(): Promise<void>;
}

const ISSUER = 'https://idp.bench.example/';
const AUDIENCE = 'api://community-platform-bench';
const KID = 'bench-key-1';

/** Starts the JWKS endpoint on a free port. */
export async function startIdentityProvider(): Promise<BenchIdentityProvider> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwks = JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' }] });
  const server = createServer((request, response) => {
    const found = request.url === '/jwks';
    response.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
    response.end(found ? jwks : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksUri: `http://127.0.0.1:${port}/jwks`,
    idToken: (subject) => signIdToken(privateKey, subject),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function signIdToken(privateKey: KeyObject, subject: string): string {
  const iat = Math.floor(Date.now() / 1000);
  const b64 = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: KID })}.${b64({ iss: ISSUER, aud: AUDIENCE, sub: subject, iat, exp: iat + 3600 })}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}
