import { randomBytes, randomUUID } from 'node:crypto';
import { connectDatabase } from '@weft/db';
import { createTestDatabase, freePort, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkKeyRing,
  createSecretBox,
  keyRingRefusal,
  keyRingStartRefusal,
  rotateSealedValues,
  SEALED_COLUMNS,
  type SecretBox,
} from '../src/encryption';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const boxA = createSecretBox(keyA);

let db: TestDatabase;
let owner: ReturnType<typeof connectDatabase>;

/** How many values each sealed column holds once seeded (two organizations). */
const seeded: Record<string, number> = {
  'credentials.secret_ciphertext': 6,
  'organization_modules.secret_ciphertext': 4,
  'webhooks.secret_ciphertext': 4,
  'users.totp_secret_ciphertext': 2,
  'workflows.trigger_config.secret_ciphertext': 2,
};

/** Seeds every sealed column under `box`: the stored secrets are `<column>:<n>` in clear. */
async function seed(box: SecretBox) {
  const sql = db.admin;
  for (const [o, org] of [randomUUID(), randomUUID()].entries()) {
    await sql`insert into organizations (id, name) values (${org}, ${`Org ${o}`})`;
    for (let i = 0; i < 3; i++) {
      await sql`insert into credentials (id, organization_id, name, type, public_fields, secret_ciphertext, masks)
        values (${randomUUID()}, ${org}, ${`c${i}`}, 'http_bearer', '{}', ${box.encrypt(`credential:${o}${i}`)}, '{}')`;
    }
    for (const module of ['chat', 'email']) {
      await sql`insert into organization_modules (organization_id, module, public_config, secret_ciphertext, masks)
        values (${org}, ${module}, '{}', ${box.encrypt(`module:${o}${module}`)}, '{}')`;
    }
    for (let i = 0; i < 2; i++) {
      await sql`insert into webhooks (id, organization_id, url, events, secret_ciphertext)
        values (${randomUUID()}, ${org}, 'https://example.com/hook', '["execution.failed"]', ${box.encrypt(`webhook:${o}${i}`)})`;
    }
    const triggerConfig = {
      path: 'orders',
      secret_ciphertext: box.encrypt(`hook:${o}`),
      secret_mask: '••••1',
    };
    await sql`insert into workflows (id, organization_id, name, trigger_type, trigger_config, status, nodes, edges)
      values (${randomUUID()}, ${org}, 'hooked', 'webhook', ${sql.json(triggerConfig)}, 'active', '[]', '[]'),
             (${randomUUID()}, ${org}, 'manual', 'manual', '{}', 'draft', '[]', '[]')`;
    await sql`insert into users (id, email, password_hash, totp_secret_ciphertext)
      values (${randomUUID()}, ${`u${o}@example.com`}, 'x', ${box.encrypt(`totp:${o}`)}),
             (${randomUUID()}, ${`v${o}@example.com`}, 'x', null)`;
  }
}

/** Every sealed value in the database, opened with `box` (throws when one does not open). */
async function openAll(box: SecretBox): Promise<string[]> {
  const rows = await db.admin<{ sealed: string }[]>`
    select secret_ciphertext as sealed from credentials
    union all select secret_ciphertext from organization_modules
    union all select secret_ciphertext from webhooks
    union all select totp_secret_ciphertext from users where totp_secret_ciphertext is not null
    union all select trigger_config ->> 'secret_ciphertext' from workflows where trigger_config ? 'secret_ciphertext'`;
  return rows.map((row) => box.decrypt(row.sealed)).sort();
}

beforeAll(async () => {
  db = await createTestDatabase();
  owner = connectDatabase(db.adminUrl, { max: 1 });
});

afterAll(async () => {
  await owner?.close();
  await db?.drop();
});

describe('the key ring on a real database', () => {
  it('lets any key start on an empty database', async () => {
    const check = await checkKeyRing(db.app.db, createSecretBox(randomBytes(32)));
    expect(check).toEqual({ sampled: 0, opened: 0, sources: [] });
    expect(keyRingRefusal(check)).toBeNull();
  });

  it('refuses a start with a key that opens nothing, in one line, and samples every sealed column', async () => {
    await seed(boxA);
    const check = await checkKeyRing(db.app.db, createSecretBox(keyB));
    expect(check.opened).toBe(0);
    // The SQL sample and SEALED_COLUMNS name the same columns (a column in only one of them fails here).
    expect(check.sources.sort()).toEqual(SEALED_COLUMNS.map((c) => c.name).sort());
    expect(check.sampled).toBe(3 + 3 + 3 + 2 + 2);
    const refusal = keyRingRefusal(check);
    expect(refusal).toMatch(/^APP_KEY opens none of the 13 sealed values sampled from the database \(/);
    expect(refusal).not.toContain('\n');
    expect(keyRingRefusal(await checkKeyRing(db.app.db, createSecretBox(keyA)))).toBeNull();
  });

  it('reads with B as APP_KEY and A in APP_KEYS_PREVIOUS, rotates everything to B, then B alone reads it all', async () => {
    const ring = createSecretBox(keyB, [keyA]);
    const before = await openAll(ring);
    expect(before).toHaveLength(18);
    expect(keyRingRefusal(await checkKeyRing(db.app.db, ring))).toBeNull();
    // One value already sealed with B: rotation counts it as current and leaves it.
    const [org] = await db.admin<{ id: string }[]>`select id from organizations limit 1`;
    await db.admin`insert into credentials (id, organization_id, name, type, public_fields, secret_ciphertext, masks)
      values (${randomUUID()}, ${org?.id ?? ''}, 'under B', 'http_bearer', '{}', ${ring.encrypt('credential:B')}, '{}')`;

    // Batches of 2 page through every table, the two-column key of organization_modules included.
    const report = await rotateSealedValues(owner.db, ring, { batchSize: 2 });
    expect(report.keyId).toBe(ring.currentKeyId);
    const byColumn = Object.fromEntries(report.columns.map((c) => [c.column, c]));
    for (const [column, count] of Object.entries(seeded)) {
      const current = column === 'credentials.secret_ciphertext' ? 1 : 0;
      expect(byColumn[column]).toEqual({
        column,
        scanned: count + current,
        rotated: count,
        alreadyCurrent: current,
        unreadable: 0,
      });
    }
    expect(report.total).toEqual({ scanned: 19, rotated: 18, alreadyCurrent: 1, unreadable: 0 });

    const bAlone = createSecretBox(keyB);
    expect(await openAll(bAlone)).toEqual([...before, 'credential:B'].sort());
    expect(keyRingRefusal(await checkKeyRing(db.app.db, bAlone))).toBeNull();
    expect(keyRingRefusal(await checkKeyRing(db.app.db, boxA))).not.toBeNull();
    // The rest of a hook's trigger config is untouched.
    const hooks = await db.admin<{ trigger_config: Record<string, unknown> }[]>`
      select trigger_config from workflows where trigger_type = 'webhook'`;
    for (const { trigger_config: config } of hooks) {
      expect(config).toMatchObject({ path: 'orders', secret_mask: '••••1' });
      expect(bAlone.decrypt(String(config.secret_ciphertext))).toMatch(/^hook:/);
    }

    const again = await rotateSealedValues(owner.db, bAlone, { batchSize: 500 });
    expect(again.total).toEqual({ scanned: 19, rotated: 0, alreadyCurrent: 19, unreadable: 0 });
  });

  it('counts a value no key of the ring opens and leaves it as it was', async () => {
    const [org] = await db.admin<{ id: string }[]>`select id from organizations limit 1`;
    const foreign = createSecretBox(randomBytes(32)).encrypt('sealed elsewhere');
    await db.admin`insert into webhooks (id, organization_id, url, events, secret_ciphertext)
      values (${randomUUID()}, ${org?.id ?? ''}, 'https://example.com/other', '[]', ${foreign})`;
    const report = await rotateSealedValues(owner.db, createSecretBox(keyB), { batchSize: 500 });
    expect(report.columns.find((c) => c.column === 'webhooks.secret_ciphertext')).toMatchObject({
      scanned: 5,
      alreadyCurrent: 4,
      rotated: 0,
      unreadable: 1,
    });
    const [row] = await db.admin<{ n: number }[]>`
      select count(*)::int as n from webhooks where secret_ciphertext = ${foreign}`;
    expect(row?.n).toBe(1);
  });

  it('at start: an unreachable database skips the check with a warning; no migrations or a foreign key refuse', async () => {
    const port = await freePort();
    const nowhere = connectDatabase(`postgres://weft_app:x@127.0.0.1:${port}/weft`, { max: 1 });
    const warnings: string[] = [];
    try {
      const refusal = await keyRingStartRefusal(nowhere.db, createSecretBox(keyB), (message) =>
        warnings.push(message),
      );
      expect(refusal).toBeNull();
      expect(warnings).toEqual([expect.stringMatching(/^APP_KEY was not checked against the database/)]);
    } finally {
      await nowhere.close();
    }
    const older = await createTestDatabase();
    try {
      await older.admin`drop function weft_sealed_value_samples(integer)`;
      const refusal = await keyRingStartRefusal(older.app.db, createSecretBox(keyB), () => {});
      expect(refusal).toMatch(/run `weft migrate` first$/);
    } finally {
      await older.drop();
    }
    expect(await keyRingStartRefusal(db.app.db, createSecretBox(randomBytes(32)), () => {})).toMatch(
      /^APP_KEY opens none of/,
    );
  });

  it('refuses to rotate on the runtime role, whose row-level security hides other organizations', async () => {
    await expect(rotateSealedValues(db.app.db, createSecretBox(keyB), { batchSize: 10 })).rejects.toThrow(
      /needs the owner connection/,
    );
  });
});
