import net from 'node:net';
import { connectDatabase, withTenant } from '@weft/db';
import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The tenancy transaction's statements travel together: BEGIN, the organization scope and the
 * work's first statement in one network write, statements sent at the same time in one more, and
 * COMMIT. That needs prepared statements: unnamed ones (drizzle's default, patched in
 * patches/drizzle-orm@*.patch) are described by postgres.js before they are bound, one round trip
 * each, and nothing is pipelined behind them.
 */
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

async function countWrites(work: () => Promise<unknown>): Promise<number> {
  const write = net.Socket.prototype.write;
  let writes = 0;
  net.Socket.prototype.write = function (this: net.Socket, ...args: Parameters<typeof write>) {
    writes++;
    return write.apply(this, args);
  } as typeof write;
  try {
    await work();
  } finally {
    net.Socket.prototype.write = write;
  }
  return writes;
}

describe('the tenancy transaction on the wire', () => {
  it('sends a transaction of four statements in three writes once its statements are prepared', async () => {
    // One connection, so the second run finds the statements the first one prepared.
    const one = connectDatabase(t.appUrl, { max: 1 });
    try {
      const organizationId = '01a21de6-dd48-7d66-8664-b19d7d6e0e3b';
      const transaction = () =>
        withTenant(one.db, organizationId, async (tx) => {
          await tx.execute(sql`select ${'x'.repeat(2000)}::text as big`);
          await Promise.all([tx.execute(sql`select ${1}::int as a`), tx.execute(sql`select ${2}::int as b`)]);
        });
      await transaction();
      expect(await countWrites(transaction)).toBe(3);
    } finally {
      await one.close();
    }
  });
});
