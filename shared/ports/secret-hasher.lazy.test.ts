import { describe, expect, it, vi } from 'vitest';
import { createSecretHasher } from './secret-hasher';

/** Counts loads of the argon2 package: its factory runs when something first imports it. */
const argon2Loads = vi.hoisted(() => ({ count: 0 }));
vi.mock('argon2', async (importOriginal) => {
  argon2Loads.count += 1;
  return importOriginal();
});

describe('createSecretHasher', () => {
  it('loads argon2 on its first computation, not when the module loads or the hasher is made', async () => {
    const hasher = createSecretHasher({ pepper: 'test-pepper-0123456789abcdefghijklmnop', params: { memoryCost: 1024, timeCost: 1, parallelism: 1 } });
    expect(argon2Loads.count).toBe(0);
    const digest = await hasher.hash('284915');
    expect(argon2Loads.count).toBe(1);
    expect(await hasher.verify(digest, '284915')).toEqual({ valid: true, needsRehash: false });
    await hasher.verifyDummy('284916');
    expect(argon2Loads.count).toBe(1);
  });
});
