import type { Database } from '@weft/db';

/** Who is acting. Exactly one of the ids is set for requests; the CLI acts as neither. */
export interface Actor {
  userId?: string;
  apiKeyId?: string;
  ipAddress?: string;
}

/**
 * What every tenant-scoped service verb receives. `organizationId` comes from authentication,
 * never from a request body.
 */
export interface ServiceContext {
  db: Database;
  organizationId: string;
  actor: Actor;
}

export interface VerbArgs<I> {
  ctx: ServiceContext;
  input: I;
}
