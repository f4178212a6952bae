import type { Authenticated, Reservation, ReservationRequest } from '@weft/domain';

/**
 * A replica's share of one bucket's current window (`key:<id>` or `org:<id>`), reserved from
 * rate_limit_counters in PostgreSQL, which every replica shares.
 */
interface Pool {
  /** Start of the window, by the database's clock (ms): identifies the window. */
  window: number;
  /** When the window ends, by this process's clock (ms). */
  endsAt: number;
  /** Reserved by this replica and not used yet. */
  units: number;
  /** The bucket's shared count after this replica's latest reservation. */
  count: number;
}

export type Admission =
  | { admitted: true; limit: number; remaining: number }
  | { admitted: false; limit: number; retryAfterSeconds: number };

/** A look-up that reserves units (weft_authenticate_api_key); null when the key is gone or revoked. */
export type Reserve = (request: ReservationRequest) => Promise<Authenticated | null>;

/**
 * Units reserved per round trip: 1% of the limit. Small limits (under 200 a minute) reserve one
 * unit per request, which counts exactly as one shared counter would.
 */
export const batchFor = (limit: number) => Math.max(1, Math.floor(limit / 100));

/** A waiter whose reservations keep being taken by others gives up after this many; never in practice. */
const MAX_ATTEMPTS = 5;
const INT4_MAX = 2_147_483_647;
/** Expired pools are swept when a map grows past this size, so departed keys do not accumulate. */
const SWEEP_AT = 1_000;

/**
 * Per-key and per-organization limits per minute (DESIGN §7), counted in PostgreSQL in batches.
 *
 * Instead of one counter update per request (a row lock every request of an organization queues
 * on), a replica reserves `batchFor(limit)` units of a bucket's window at a time and hands them out
 * in memory. A reservation never passes the limit, so all replicas together never admit more than
 * the limit in a window. The price: units reserved by one replica and not used by the end of the
 * window are lost to the others, so a client spread over N replicas may be refused up to
 * N × (batch − 1) requests (N% of the limit) early; X-RateLimit-Remaining is exact with one
 * replica and an estimate with several (docs/decisions.md).
 *
 * One reservation per key is in flight at a time; requests that find the pools empty meanwhile
 * wait for it, and the next reservation asks for enough units for all of them. A reservation that
 * comes back short means the shared window is used up: the requests it was meant for are refused.
 * Refusals are not remembered: the next request asks PostgreSQL again, as the window may have moved.
 */
export class RateLimitLeases {
  private readonly keys = new Map<string, Pool>();
  private readonly orgs = new Map<string, Pool>();
  private readonly inFlight = new Map<string, Promise<Authenticated | null>>();
  private readonly waiting = new Map<string, number>();
  private readonly keyBatch: number;
  private readonly orgBatch: number;

  constructor(
    private readonly limits: { perKey: number; perOrg: number },
    /** Monotonic, so that a step of the wall clock cannot stretch or cut a window. */
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.keyBatch = batchFor(limits.perKey);
    this.orgBatch = batchFor(limits.perOrg);
  }

  /** What the first look-up of a key reserves: a batch of each bucket. */
  firstReservation(): ReservationRequest {
    return this.request(this.keyBatch, this.orgBatch);
  }

  /** Adds the units a look-up reserved to this replica's pools. */
  record(answer: Authenticated): void {
    const window = answer.windowStart.getTime();
    // The window ends 60 s after its start by the database's clock; translate to ours.
    const endsAt = this.clock() + (window + 60_000 - answer.databaseNow.getTime());
    if (answer.key) this.add(this.keys, answer.apiKeyId, window, endsAt, answer.key);
    if (answer.org) this.add(this.orgs, answer.organizationId, window, endsAt, answer.org);
  }

  /**
   * Admits one request of the key, from the pools when they hold units, otherwise after reserving
   * more through `reserve`. Null when the reservation found the key gone or revoked.
   */
  async admit(apiKeyId: string, organizationId: string, reserve: Reserve): Promise<Admission | null> {
    const ready = this.take(apiKeyId, organizationId);
    if (ready) return ready;
    this.waiting.set(apiKeyId, (this.waiting.get(apiKeyId) ?? 0) + 1);
    try {
      for (let attempt = 1; ; attempt++) {
        const answer = await (this.inFlight.get(apiKeyId) ?? this.reserve(apiKeyId, organizationId, reserve));
        if (!answer) return null;
        const admitted = this.take(apiKeyId, organizationId);
        if (admitted) return admitted;
        const refused = this.refusal(answer, attempt >= MAX_ATTEMPTS);
        if (refused) return refused;
      }
    } finally {
      const left = (this.waiting.get(apiKeyId) ?? 1) - 1;
      if (left > 0) this.waiting.set(apiKeyId, left);
      else this.waiting.delete(apiKeyId);
    }
  }

  private request(keyUnits: number, orgUnits: number): ReservationRequest {
    // The counters are PostgreSQL integers; a larger configured limit means "no limit" anyway.
    const int = (n: number) => Math.min(n, INT4_MAX);
    return {
      keyUnits: int(keyUnits),
      orgUnits: int(orgUnits),
      keyLimit: int(this.limits.perKey),
      orgLimit: int(this.limits.perOrg),
    };
  }

  private reserve(apiKeyId: string, organizationId: string, reserve: Reserve) {
    const waiting = this.waiting.get(apiKeyId) ?? 1;
    const want = (left: number, batch: number) => (left >= waiting ? 0 : Math.max(batch, waiting - left));
    const request = this.request(
      want(this.live(this.keys, apiKeyId)?.units ?? 0, this.keyBatch),
      want(this.live(this.orgs, organizationId)?.units ?? 0, this.orgBatch),
    );
    const pending = reserve(request)
      .then((answer) => {
        if (answer) this.record(answer);
        return answer;
      })
      .finally(() => this.inFlight.delete(apiKeyId));
    this.inFlight.set(apiKeyId, pending);
    return pending;
  }

  /** One unit from each pool, or undefined if either is empty (or its window is over). */
  private take(apiKeyId: string, organizationId: string): Admission | undefined {
    const key = this.live(this.keys, apiKeyId);
    const org = this.live(this.orgs, organizationId);
    if (!key || !org || key.units < 1 || org.units < 1) return undefined;
    key.units--;
    org.units--;
    // Used so far = the shared count minus what this replica holds unused.
    const keyRemaining = this.limits.perKey - (key.count - key.units);
    const orgRemaining = this.limits.perOrg - (org.count - org.units);
    return keyRemaining <= orgRemaining
      ? { admitted: true, limit: this.limits.perKey, remaining: Math.max(0, keyRemaining) }
      : { admitted: true, limit: this.limits.perOrg, remaining: Math.max(0, orgRemaining) };
  }

  /**
   * The refusal an answer implies for a request its units did not reach: when a pool is empty and
   * the answer shows its shared window used up. Otherwise (the units went to other requests, or the
   * answer did not cover that bucket) the caller reserves again.
   */
  private refusal(answer: Authenticated, giveUp: boolean): Admission | undefined {
    const keyEmpty = (this.live(this.keys, answer.apiKeyId)?.units ?? 0) < 1;
    const orgEmpty = (this.live(this.orgs, answer.organizationId)?.units ?? 0) < 1;
    const byKey = keyEmpty && answer.key !== null && answer.key.count >= this.limits.perKey;
    const byOrg = orgEmpty && answer.org !== null && answer.org.count >= this.limits.perOrg;
    if (!byKey && !byOrg && !giveUp) return undefined;
    const useKey = byKey || (!byOrg && keyEmpty);
    const pool = useKey ? this.live(this.keys, answer.apiKeyId) : this.live(this.orgs, answer.organizationId);
    const endsAt = pool?.endsAt ?? this.clock() + 60_000;
    return {
      admitted: false,
      limit: useKey ? this.limits.perKey : this.limits.perOrg,
      retryAfterSeconds: Math.max(1, Math.ceil((endsAt - this.clock()) / 1000)),
    };
  }

  private add(pools: Map<string, Pool>, id: string, window: number, endsAt: number, got: Reservation) {
    const pool = this.live(pools, id);
    if (pool && pool.window === window) {
      pool.units += got.granted;
      // The latest answer, not the largest: the window's row may have been reset meanwhile.
      pool.count = got.count;
    } else if (!pool || pool.window < window) {
      if (pools.size >= SWEEP_AT) this.sweep(pools);
      pools.set(id, { window, endsAt, units: got.granted, count: got.count });
    }
    // An answer for an older window than the pool's arrived late: its units are of no use now.
  }

  private live(pools: Map<string, Pool>, id: string): Pool | undefined {
    const pool = pools.get(id);
    if (pool && pool.endsAt <= this.clock()) {
      pools.delete(id);
      return undefined;
    }
    return pool;
  }

  private sweep(pools: Map<string, Pool>) {
    const now = this.clock();
    for (const [id, pool] of pools) if (pool.endsAt <= now) pools.delete(id);
  }
}
