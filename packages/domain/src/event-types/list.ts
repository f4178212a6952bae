import { schema, withTenant } from '@weft/db';
import { asc, eq } from 'drizzle-orm';
import type { ServiceContext } from '../context';
import { EVENT_CATALOG } from './catalog';

const catalogNames = new Set(EVENT_CATALOG.map((e) => e.name));

/** The trigger catalog: built-in events first (spec order), then the organization's own event names. */
export async function listEventTypes({ ctx }: { ctx: ServiceContext }) {
  const t = schema.eventNames;
  const seen = await withTenant(ctx.db, ctx.organizationId, (tx) =>
    tx.select().from(t).where(eq(t.organizationId, ctx.organizationId)).orderBy(asc(t.name)),
  );
  const seenByName = new Map(seen.map((row) => [row.name, row]));
  const seenTimes = (name: string) => {
    const row = seenByName.get(name);
    return {
      first_seen_at: row ? row.firstSeenAt.toISOString() : null,
      last_seen_at: row ? row.lastSeenAt.toISOString() : null,
    };
  };
  const builtIn = EVENT_CATALOG.map((event) => ({ ...event, custom: false, ...seenTimes(event.name) }));
  // Names the organization published that the catalog does not list (scheduled.<id> is covered by scheduled.*).
  const custom = seen
    .filter((row) => !catalogNames.has(row.name) && !row.name.startsWith('scheduled.'))
    .map((row) => ({
      name: row.name,
      category: categoryOf(row.name),
      description: null,
      example_payload: null,
      custom: true,
      ...seenTimes(row.name),
    }));
  return { data: [...builtIn, ...custom] };
}

/** `invoice.paid` -> `Invoice`: the part before the first dot, capitalized. */
function categoryOf(name: string): string {
  const head = name.split('.')[0] ?? name;
  return head.charAt(0).toUpperCase() + head.slice(1);
}
