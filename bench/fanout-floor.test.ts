import { describe, expect, it } from 'vitest';
import { fanoutFloor, plannedRequests } from './fanout';

const plan = { providerDelayMs: 50, parallelBatches: 4 };

describe('plannedRequests', () => {
  it('counts one push request per 100 devices and one request per SMS and e-mail', () => {
    expect(plannedRequests(['push'], 10_000)).toEqual({ push: 100, sms: 0, email: 0, total: 100 });
    expect(plannedRequests(['push', 'sms', 'email'], 10_001)).toEqual({ push: 101, sms: 10_001, email: 10_001, total: 20_103 });
  });
});

describe('fanoutFloor', () => {
  it('is the request bound when each batch needs many rounds (SMS: 20 batches of 500, 16 at a time, 4 batches at once)', () => {
    const floor = fanoutFloor(plan, ['sms'], { recipients: 10_000, batches: 20 }, 500, 16);
    expect(floor.inFlight).toBe(64);
    expect(floor.requestBoundMs).toBeCloseTo(7812.5);
    // 5 batches per slot × ⌈500 ÷ 16⌉ = 32 rounds × 50 ms.
    expect(floor.batchBoundMs).toBe(8000);
    expect(floor.floorMs).toBe(8000);
  });

  it('is the batch bound for push, whose 5 requests a batch fit in one round', () => {
    const floor = fanoutFloor(plan, ['push'], { recipients: 10_000, batches: 20 }, 500, 16);
    expect(floor.requestBoundMs).toBeCloseTo(78.125);
    expect(floor.batchBoundMs).toBe(250);
    expect(floor.floorMs).toBe(250);
  });

  it('uses the smallest batch (the last one, the rest of the audience) for the batch bound', () => {
    const floor = fanoutFloor(plan, ['email'], { recipients: 1_010, batches: 3 }, 500, 16);
    expect(floor.smallestBatchRequests).toBe(10);
    expect(floor.roundsPerBatch).toBe(1);
    expect(floor.batchesPerSlot).toBe(1);
    expect(floor.floorMs).toBeCloseTo(Math.max((1_010 / 64) * 50, 50));
  });
});
