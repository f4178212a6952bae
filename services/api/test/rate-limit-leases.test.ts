import { authenticateApiKey } from '@weft/domain';
import { createTestApi, jsonRequester, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { batchFor, RateLimitLeases } from '../src/auth/rate-limit-leases';
import { createReplica, waitForRoomInMinute } from './helpers';

/**
 * Rate limits counted in batches (src/auth/rate-limit-leases.ts): a replica reserves 1% of a limit
 * at a time in PostgreSQL. rate-limits.test.ts covers the small limits (one unit per request, exact);
 * here the limits are large enough for batches, and the bound written in docs/decisions.md is
 * checked: never more than the limit in a window across replicas, at most N × (batch − 1) refused
 * early.
 */

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());
// Room in the window for a test's hundreds of requests: generous, a busy machine is slow.
beforeEach(() => waitForRoomInMinute(api.db.admin, 20));

function replica(perKey: number, perOrg = 100_000) {
  return jsonRequester(createReplica(api, { perKey, perOrg }));
}

const keyCounter = async (apiKeyId: string) => {
  const [row] = await api.db.admin`select count from rate_limit_counters where bucket = ${`key:${apiKeyId}`}`;
  return row?.count as number | undefined;
};

describe('batches', () => {
  it('reserves 1% of the limit per round trip; one replica still counts X-RateLimit-Remaining exactly', async () => {
    expect([batchFor(5), batchFor(199), batchFor(200), batchFor(600), batchFor(1_000_000_000)]).toEqual([
      1, 1, 2, 6, 10_000_000,
    ]);
    const org = await api.createOrg('Batched');
    const a = replica(1000);
    const remaining: string[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await a('GET', '/api/v1/workflows', { key: org.key });
      expect(res.status).toBe(200);
      expect(res.headers.get('X-RateLimit-Limit')).toBe('1000');
      remaining.push(res.headers.get('X-RateLimit-Remaining') ?? '');
    }
    expect(remaining).toEqual(Array.from({ length: 25 }, (_, i) => String(999 - i)));
    expect(await keyCounter(org.apiKeyId)).toBe(30); // three batches of 10
  });
});

describe('configured limits beyond a PostgreSQL integer', () => {
  it('work as no limit instead of failing every request', async () => {
    const org = await api.createOrg('Unlimited');
    const res = await replica(3_000_000_000, 5_000_000_000)('GET', '/api/v1/workflows', { key: org.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('X-RateLimit-Limit')).toBe('3000000000');
  });
});

describe('across replicas (limit 200 a minute, batches of 2)', () => {
  it('never admits more than the limit; units one replica holds are lost to the other, not to itself', async () => {
    const org = await api.createOrg('Two replicas');
    const a = replica(200);
    const b = replica(200);
    const get = (app: typeof a) => app('GET', '/api/v1/workflows', { key: org.key });
    for (let i = 0; i < 3; i++) expect((await get(a)).status).toBe(200); // a reserved 4, used 3
    let admittedByB = 0;
    for (;;) {
      const res = await get(b);
      if (res.status === 429) break;
      expect(res.status).toBe(200);
      admittedByB++;
    }
    // 200 reserved in all; a holds 1 unused, so b is refused one request early (N × (batch − 1) = 2 at most).
    expect(admittedByB).toBe(196);
    expect(await keyCounter(org.apiKeyId)).toBe(200);
    expect((await get(a)).status).toBe(200); // a's own unit
    expect((await get(a)).status).toBe(429);
  });

  it('concurrent bursts on two replicas stay within the limit and lose at most N × (batch − 1)', async () => {
    const org = await api.createOrg('Burst');
    const a = replica(300); // batches of 3
    const b = replica(300);
    const burst = (app: typeof a) =>
      Array.from({ length: 200 }, () => app('GET', '/api/v1/workflows', { key: org.key }));
    const statuses = (await Promise.all([...burst(a), ...burst(b)])).map((r) => r.status);
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(admitted).toBeLessThanOrEqual(300);
    expect(admitted).toBeGreaterThanOrEqual(300 - 2 * (3 - 1));
    expect(await keyCounter(org.apiKeyId)).toBeLessThanOrEqual(300);
  });
});

describe('windows', () => {
  it("units die with their window: after the window's end a replica reserves again", async () => {
    const org = await api.createOrg('Clock');
    let now = Date.now();
    const leases = new RateLimitLeases({ perKey: 1000, perOrg: 100_000 }, () => now);
    const reserve = (request: Parameters<typeof authenticateApiKey>[2]) =>
      authenticateApiKey(api.db.app.db, org.key, request);
    const first = await reserve(leases.firstReservation());
    if (!first) throw new Error('key not found');
    leases.record(first);
    const reservations: number[] = [];
    const counting = (request: Parameters<typeof authenticateApiKey>[2]) => {
      reservations.push(request.keyUnits);
      return reserve(request);
    };
    for (let i = 0; i < 9; i++) {
      expect(await leases.admit(first.apiKeyId, first.organizationId, counting)).toMatchObject({
        admitted: true,
      });
    }
    expect(reservations).toEqual([]); // 10 reserved, 9 used: nothing asked yet
    now += 61_000; // past the window's end by this process's clock
    expect(await leases.admit(first.apiKeyId, first.organizationId, counting)).toMatchObject({
      admitted: true,
    });
    expect(reservations).toEqual([10]); // the unit left from the old window was not used
  });
});
