import { describe, expect, it } from 'vitest';
import { resourceIdOf, resourceIdParam } from './resource-id';

describe('resourceIdParam', () => {
  it('reads an id in its stored, lower-case form however it was typed', () => {
    const id = '3f0c1a9e-2b4d-4c8e-9a7b-1d2e3f4a5b6c';
    expect(resourceIdParam.parse(id)).toBe(id);
    expect(resourceIdParam.parse(id.toUpperCase())).toBe(id);
  });

  it('refuses what is not a UUID', () => {
    for (const bad of ['not-a-uuid', '3f0c1a9e-2b4d-4c8e-9a7b-1d2e3f4a5b6c ', '', "x' OR 1=1"]) {
      expect(resourceIdParam.safeParse(bad).success, bad).toBe(false);
    }
  });
});

describe('resourceIdOf', () => {
  it('gives the id of the path in its stored form', () => {
    expect(resourceIdOf({ id: '3F0C1A9E-2B4D-4C8E-9A7B-1D2E3F4A5B6C' }, 'a user')).toEqual({
      ok: true,
      id: '3f0c1a9e-2b4d-4c8e-9a7b-1d2e3f4a5b6c',
    });
  });

  it('answers 400 invalid_request naming the kind of id', () => {
    const cases = [
      ['a child account', 'id: not a child account id.'],
      ['a user', 'id: not a user id.'],
      ['an announcement', 'id: not an announcement id.'],
    ] as const;
    for (const [noun, detail] of cases) {
      const answer = resourceIdOf({ id: 'nope' }, noun);
      expect(answer.ok).toBe(false);
      if (answer.ok) continue;
      expect(answer.problem.code).toBe('invalid_request');
      expect(answer.problem.detail).toBe(detail);
    }
    expect(resourceIdOf({}, 'a user').ok).toBe(false);
  });
});
