/** What a request needs to know about its key before it reaches the database. */
export interface KnownKey {
  apiKeyId: string;
  organizationId: string;
  permissions: string[];
}

/**
 * Key hash → organization and permissions, inside one API process, so that most requests skip the
 * look-up round trip. Nothing here is trusted on its own: a request served from this cache has its
 * key re-checked by PostgreSQL inside its tenancy transaction (packages/db/src/caller.ts), so a
 * revoked or narrowed key is refused on the next request however old the entry is; an entry is
 * dropped when that check fails and replaced whenever a rate-limit reservation reads the key again
 * (at least once a minute per active key). Keyed by the SHA-256 of the key, as in the database,
 * so the process never keeps plain keys.
 *
 * Bounded: past `capacity` entries the oldest is dropped (insertion order); a dropped key costs one
 * look-up on its next request.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, KnownKey>();

  constructor(private readonly capacity = 10_000) {}

  get(keyHash: string): KnownKey | undefined {
    return this.entries.get(keyHash);
  }

  set(keyHash: string, key: KnownKey): void {
    this.entries.delete(keyHash);
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(keyHash, key);
  }

  delete(keyHash: string): void {
    this.entries.delete(keyHash);
  }
}
