import { describe, expect, it } from 'vitest';
import { acsSignatureProblem } from './acs-signature-check';
import type { FakeRequest } from './fake-http';

/** The Azure SDK for JavaScript's own known answer (communication-common tests, key "pw=="). */
const signedAt = Date.parse('2022-04-13T18:09:12.451Z');
const sdkRequest = (): FakeRequest => ({
  method: 'GET',
  url: '/testPath?testQuery=test',
  headers: {
    host: 'example.com',
    'x-ms-date': 'Wed, 13 Apr 2022 18:09:12 GMT',
    'x-ms-content-sha256': '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
    authorization: 'HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=DGdgwggJWnQyc6EHjR/Vbqg1ES64KpD6U2XwTDDj3tU=',
  },
  rawBody: Buffer.alloc(0),
  body: Buffer.alloc(0),
});
const key = Buffer.from('pw==', 'base64');

describe("the fake ACS's signature check", () => {
  it('accepts the request the Azure SDK signs', () => {
    expect(acsSignatureProblem(sdkRequest(), key, signedAt)).toBeUndefined();
  });

  it('refuses a changed path, host, body or key, a stale date and missing headers', () => {
    expect(acsSignatureProblem({ ...sdkRequest(), url: '/testPath' }, key, signedAt)).toBe('signature mismatch');
    expect(acsSignatureProblem({ ...sdkRequest(), headers: { ...sdkRequest().headers, host: 'example.com:8443' } }, key, signedAt)).toBe(
      'signature mismatch',
    );
    expect(acsSignatureProblem({ ...sdkRequest(), rawBody: Buffer.from('{}') }, key, signedAt)).toBe(
      'x-ms-content-sha256 does not match the body',
    );
    expect(acsSignatureProblem(sdkRequest(), Buffer.from('other'), signedAt)).toBe('signature mismatch');
    expect(acsSignatureProblem(sdkRequest(), key, signedAt + 16 * 60 * 1000)).toBe('x-ms-date is missing or too far off');
    expect(acsSignatureProblem({ ...sdkRequest(), headers: { host: 'example.com' } }, key, signedAt)).toBe('missing authentication headers');
  });
});
