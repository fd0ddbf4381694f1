import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FakeRequest } from './fake-http';

/**
 * The fake ACS's check of a request's HMAC-SHA256 access-key signature, written from Microsoft's
 * description ("Sign an HTTP request") independently of the app's signer, so a mistake in one is
 * not mirrored by the other: body hash, date within 15 minutes, and
 * `VERB\npath?query\nx-ms-date;host;x-ms-content-sha256` signed with the base64-decoded key.
 * Answers the reason a request is refused, or undefined when it is authentic.
 */
export function acsSignatureProblem(request: FakeRequest, accessKey: Buffer, now = Date.now()): string | undefined {
  const date = header(request, 'x-ms-date');
  const contentHash = header(request, 'x-ms-content-sha256');
  const host = header(request, 'host');
  const authorization = header(request, 'authorization');
  if (!date || !contentHash || !host || !authorization) return 'missing authentication headers';

  const expectedHash = createHash('sha256').update(request.rawBody).digest('base64');
  if (contentHash !== expectedHash) return 'x-ms-content-sha256 does not match the body';

  const signedAt = Date.parse(date);
  if (Number.isNaN(signedAt) || Math.abs(now - signedAt) > 15 * 60 * 1000) return 'x-ms-date is missing or too far off';

  const match = /^HMAC-SHA256 SignedHeaders=([^&]+)&Signature=(.+)$/.exec(authorization);
  if (!match) return 'Authorization is not HMAC-SHA256';
  if (match[1]?.toLowerCase() !== 'x-ms-date;host;x-ms-content-sha256') return 'unexpected SignedHeaders';

  const stringToSign = [request.method.toUpperCase(), request.url, `${date};${host};${contentHash}`].join('\n');
  const expected = createHmac('sha256', accessKey).update(stringToSign, 'utf8').digest();
  const given = Buffer.from(match[2] ?? '', 'base64');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'signature mismatch';
  return undefined;
}

function header(request: FakeRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
