import { describe, expect, it } from 'vitest';
import { acsAuthenticationHeaders, parseAcsConnectionString } from './acs-auth';

/** Known answers from the Azure SDK for JavaScript's own tests (communication-common, key "pw=="). */
const SDK_VECTOR = {
  accessKey: Buffer.from('pw==', 'base64'),
  now: new Date('2022-04-13T18:09:12.451Z'),
  emptyBodyHash: '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
};

describe('acsAuthenticationHeaders', () => {
  it('matches the Azure SDK signature for a path with a query', () => {
    const headers = acsAuthenticationHeaders({
      method: 'get',
      url: 'https://example.com/testPath?testQuery=test',
      body: '',
      accessKey: SDK_VECTOR.accessKey,
      now: SDK_VECTOR.now,
    });
    expect(headers).toEqual({
      'x-ms-date': 'Wed, 13 Apr 2022 18:09:12 GMT',
      'x-ms-content-sha256': SDK_VECTOR.emptyBodyHash,
      authorization:
        'HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=DGdgwggJWnQyc6EHjR/Vbqg1ES64KpD6U2XwTDDj3tU=',
    });
  });

  it('matches the Azure SDK signature for a path without a query', () => {
    const headers = acsAuthenticationHeaders({
      method: 'GET',
      url: 'https://example.com/testPath',
      body: '',
      accessKey: SDK_VECTOR.accessKey,
      now: SDK_VECTOR.now,
    });
    expect(headers.authorization).toBe(
      'HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=+6tWkg3lNKVjQHHmxkdGQcJjUgzclsWTMebnuCz1ngU=',
    );
  });

  it('signs the body hash and the port, so a changed body or host gives another signature', () => {
    const base = { method: 'POST', body: '{"a":1}', accessKey: SDK_VECTOR.accessKey, now: SDK_VECTOR.now };
    const signed = acsAuthenticationHeaders({ ...base, url: 'http://127.0.0.1:8080/sms?api-version=2021-03-07' });
    expect(signed['x-ms-content-sha256']).toBe('AVq9f1zFei3ZS3WQ8ErYCEJzkF7jPsXOvq5iJ2qX+GI=');
    expect(acsAuthenticationHeaders({ ...base, body: '{"a":2}', url: 'http://127.0.0.1:8080/sms?api-version=2021-03-07' }).authorization)
      .not.toBe(signed.authorization);
    expect(acsAuthenticationHeaders({ ...base, url: 'http://127.0.0.1:8081/sms?api-version=2021-03-07' }).authorization)
      .not.toBe(signed.authorization);
  });
});

describe('parseAcsConnectionString', () => {
  it('reads the endpoint and the base64 access key, in any case and order', () => {
    const credentials = parseAcsConnectionString('AccessKey=cHc=;Endpoint=https://res.communication.azure.com/');
    expect(credentials.endpoint).toBe('https://res.communication.azure.com');
    expect(credentials.accessKey.toString('utf8')).toBe('pw');
  });

  it('refuses malformed strings without echoing them', () => {
    for (const bad of ['', 'endpoint=https://x', 'accesskey=cHc=', 'endpoint=not a url;accesskey=cHc=', 'endpoint=ftp://x;accesskey=cHc=', 'endpoint=https://x;accesskey=s3cr3t!!']) {
      let message = '';
      try {
        parseAcsConnectionString(bad);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^ACS_CONNECTION_STRING/);
      expect(message).not.toContain('s3cr3t');
    }
  });
});
