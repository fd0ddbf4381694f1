import type { HttpRequest } from '@azure/functions';
import type { Validator } from '../validation/lazy-schema';
import { problem, type Problem } from '../errors/problem';
import { fieldErrorsOf, summarizeFieldErrors } from '../errors/field-errors';
import { loneSurrogateErrors } from '../errors/well-formed-strings';

/** The contract's request body limit. */
export const MAX_BODY_BYTES = 16 * 1024;

/** The detail of an empty body sent without `Content-Length` (chunked, or HTTP/2 without one). */
export const LENGTH_REQUIRED_DETAIL = 'A JSON body is required, sent with a Content-Length header: a body without one (chunked) does not reach the API.';

export type BodyResult<T> = { ok: true; value: T } | { ok: false; problem: Problem };

const JSON_CONTENT_TYPE = /^application\/(?:[a-z0-9.+-]*\+)?json\s*(?:;|$)/i;

/**
 * Reads, parses and validates a JSON request body without ever holding more than the limit:
 * 413 over 16 KiB (by `Content-Length` or while streaming), 415 for a non-JSON content type,
 * 400 for anything that is not JSON, not I-JSON (a lone surrogate in a string) or breaks the schema
 * (with an `errors` entry per failing field),
 * or that arrived empty (a body without `Content-Length` arrives empty under the Functions host).
 * Details never echo submitted values.
 */
export async function readJsonBody<T>(request: HttpRequest, schema: Validator<T>): Promise<BodyResult<T>> {
  const declaredLength = Number(request.headers.get('content-length') ?? '0');
  if (Number.isFinite(declaredLength) && declaredLength > MAX_BODY_BYTES) {
    return { ok: false, problem: payloadTooLarge() };
  }
  const contentType = request.headers.get('content-type');
  if (contentType !== null && !JSON_CONTENT_TYPE.test(contentType)) {
    return { ok: false, problem: unsupportedMediaType() };
  }
  const bytes = await readCapped(request);
  if (bytes === 'too_large') {
    return { ok: false, problem: payloadTooLarge() };
  }
  if (bytes.length === 0) {
    // The Functions host passes a body on only when `Content-Length` is above 0 (`ToRpcHttp`): a
    // chunked body reaches the app empty, so the answer says what to change.
    const detail = request.headers.get('content-length') === null ? LENGTH_REQUIRED_DETAIL : 'A JSON body is required.';
    return { ok: false, problem: problem('invalid_request', { detail }) };
  }
  if (contentType === null) return { ok: false, problem: unsupportedMediaType() };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch {
    return { ok: false, problem: problem('invalid_request', { detail: 'The body is not valid UTF-8 JSON.' }) };
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const errors = fieldErrorsOf(result.error.issues, parsed);
    return { ok: false, problem: problem('invalid_request', { detail: summarizeFieldErrors(errors), errors }) };
  }
  // I-JSON (RFC 7493): a `\ud800` escape parses into a string that is not Unicode; refused before
  // any code sees it, field by field (the pointer, never the value). Checked on the validated data,
  // whose members are all the schema's own, so a pointer never repeats a name the client made up.
  const malformed = loneSurrogateErrors(result.data);
  if (malformed.length > 0) {
    return { ok: false, problem: problem('invalid_request', { detail: summarizeFieldErrors(malformed), errors: malformed }) };
  }
  return { ok: true, value: result.data };
}

function payloadTooLarge(): Problem {
  return problem('payload_too_large', { detail: `The body must not exceed ${MAX_BODY_BYTES} bytes.` });
}

function unsupportedMediaType(): Problem {
  return problem('unsupported_media_type', { detail: 'Send the body as application/json.' });
}

async function readCapped(request: HttpRequest): Promise<Uint8Array | 'too_large'> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      return 'too_large';
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
