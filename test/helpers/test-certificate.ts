import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl, valid for a day. */
export interface TestCertificate {
  key: Buffer;
  cert: Buffer;
  /** The certificate's PEM file: what a child process trusts through `NODE_EXTRA_CA_CERTS`. */
  certPath: string;
  dispose(): void;
}

const OPENSSL = '/usr/bin/openssl';

/** Makes a fresh key pair and certificate in a temporary directory (removed by `dispose`). */
export function createTestCertificate(): TestCertificate {
  const directory = mkdtempSync(join(tmpdir(), 'test-cert-'));
  const keyPath = join(directory, 'key.pem');
  const certPath = join(directory, 'cert.pem');
  try {
    // prettier-ignore
    execFileSync(OPENSSL, [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ], { stdio: 'pipe' });
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`could not create a test certificate with ${OPENSSL}: ${String(error)}`);
  }
  return {
    key: readFileSync(keyPath),
    cert: readFileSync(certPath),
    certPath,
    dispose: () => rmSync(directory, { recursive: true, force: true }),
  };
}
