import type { Database } from '@weft/db';
import { type Authenticated, authenticateApiKey, hashApiKey, isWellFormedApiKey } from '@weft/domain';
import { ApiKeyCache, type KnownKey } from './api-key-cache';
import { type Admission, RateLimitLeases } from './rate-limit-leases';

export interface Admitted {
  key: KnownKey;
  /** The cache entry's name, to drop it when PostgreSQL refuses the key later in the request. */
  keyHash: string;
  /** True when this request read the key from PostgreSQL (a first look-up or a reservation). */
  fresh: boolean;
  admission: Admission;
}

const known = (answer: Authenticated): KnownKey => ({
  apiKeyId: answer.apiKeyId,
  organizationId: answer.organizationId,
  permissions: answer.permissions,
});

/**
 * The door of every API request with a key: finds the key (cache, else one look-up that also
 * reserves rate-limit units) and admits the request against the per-key and per-organization
 * limits. Concurrent first requests with one key share one look-up.
 */
export class ApiKeyGate {
  private readonly cache = new ApiKeyCache();
  private readonly leases: RateLimitLeases;
  private readonly lookups = new Map<string, Promise<KnownKey | null>>();

  constructor(
    private readonly db: Database,
    limits: { perKey: number; perOrg: number },
  ) {
    this.leases = new RateLimitLeases(limits);
  }

  /** Null for a malformed, unknown or revoked key. */
  async admit(presented: string): Promise<Admitted | null> {
    if (!isWellFormedApiKey(presented)) return null;
    const keyHash = hashApiKey(presented);
    let fresh = false;
    let key = this.cache.get(keyHash);
    if (!key) {
      key = (await this.lookUp(presented, keyHash)) ?? undefined;
      if (!key) return null;
      fresh = true;
    }
    const admission = await this.leases.admit(key.apiKeyId, key.organizationId, async (request) => {
      // Every reservation reads the key again: it refreshes the entry, or finds the key revoked.
      const answer = await authenticateApiKey(this.db, presented, request);
      if (answer) {
        this.cache.set(keyHash, known(answer));
        fresh = true;
      } else {
        this.cache.delete(keyHash);
      }
      return answer;
    });
    if (!admission) return null;
    return { key: this.cache.get(keyHash) ?? key, keyHash, fresh, admission };
  }

  /** Drops a key PostgreSQL refused, or one whose cached permissions turned out stale. */
  forget(keyHash: string): void {
    this.cache.delete(keyHash);
  }

  private lookUp(presented: string, keyHash: string): Promise<KnownKey | null> {
    const pending = this.lookups.get(keyHash);
    if (pending) return pending;
    const lookup = authenticateApiKey(this.db, presented, this.leases.firstReservation())
      .then((answer) => {
        if (!answer) return null;
        this.leases.record(answer);
        this.cache.set(keyHash, known(answer));
        return known(answer);
      })
      .finally(() => this.lookups.delete(keyHash));
    this.lookups.set(keyHash, lookup);
    return lookup;
  }
}
