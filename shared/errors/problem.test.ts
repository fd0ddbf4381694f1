import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue';
import { problem, problemBody, problemBodySchema } from './problem';

const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

describe('problemBody', () => {
  it.each(CODES)('gives %s all six members of the contract, detail included, when the problem has no detail of its own', (code) => {
    const body = problemBody(problem(code), 'trace-1');
    expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'status', 'title', 'traceId', 'type']);
    expect(body).toMatchObject({ type: 'about:blank', code, status: ERROR_CATALOGUE[code].status, title: ERROR_CATALOGUE[code].title, traceId: 'trace-1' });
    expect(body.detail.length).toBeGreaterThan(10);
    expect(problemBodySchema.safeParse(body).success).toBe(true);
  });

  it("keeps a problem's own detail and field errors, and never shows its cause", () => {
    const body = problemBody(
      problem('invalid_request', {
        detail: 'Invalid body: /pin.',
        errors: [{ pointer: '/pin', code: 'invalid_type', detail: 'Expected a string.' }],
        cause: new Error('canary-cause-text'),
      }),
      't',
    );
    expect(body.detail).toBe('Invalid body: /pin.');
    expect(body.errors).toEqual([{ pointer: '/pin', code: 'invalid_type', detail: 'Expected a string.' }]);
    expect(JSON.stringify(body)).not.toContain('canary-cause-text');
  });

  it('is required by the schema the OpenAPI document and the end-to-end checks use', () => {
    const { detail: _detail, ...withoutDetail } = problemBody(problem('not_found'), 't');
    expect(problemBodySchema.safeParse(withoutDetail).success).toBe(false);
  });
});
