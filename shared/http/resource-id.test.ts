import { describe, expect, it } from 'vitest';
import { resourceIdParam } from './resource-id';

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
