import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from '@weft/config';
import { connectDatabase, enableAppRoleLogin, runMigrations, startEmbeddedPostgres } from '@weft/db';
import {
  checkKeyRing,
  createSecretBox,
  type RotationReport,
  rotateSealedValues,
  type SecretBox,
} from '@weft/domain';
import postgres from 'postgres';
import { printResult } from '../output';

const ORGANIZATIONS = 10;

const snakeCase = ({ alreadyCurrent, ...counts }: RotationReport['total']) => ({
  ...counts,
  already_current: alreadyCurrent,
});
const CHUNK = 1000;

/** `n` sealed values under `box` in three sealed columns (7 : 2 : 1), spread over ten organizations. */
async function seed(sql: postgres.Sql, box: SecretBox, n: number) {
  const orgs = Array.from({ length: ORGANIZATIONS }, (_, i) => ({
    id: randomUUID(),
    name: `keys bench ${i}`,
  }));
  await sql`insert into organizations ${sql(orgs)}`;
  const org = (i: number) => orgs[i % ORGANIZATIONS]?.id ?? '';
  const credentials = Math.round(n * 0.7);
  const webhooks = Math.round(n * 0.2);
  const hooks = n - credentials - webhooks;
  const rows = {
    credentials: Array.from({ length: credentials }, (_, i) => ({
      id: randomUUID(),
      organization_id: org(i),
      name: `credential ${i}`,
      type: 'http_bearer',
      public_fields: {},
      secret_ciphertext: box.encrypt(
        JSON.stringify({ token: `tok_${i}_${randomBytes(12).toString('hex')}` }),
      ),
      masks: {},
    })),
    webhooks: Array.from({ length: webhooks }, (_, i) => ({
      id: randomUUID(),
      organization_id: org(i),
      url: 'https://example.com/hook',
      events: ['execution.failed'],
      secret_ciphertext: box.encrypt(`whsec_${randomBytes(24).toString('hex')}`),
    })),
    workflows: Array.from({ length: hooks }, (_, i) => ({
      id: randomUUID(),
      organization_id: org(i),
      name: `hook ${i}`,
      trigger_type: 'webhook',
      trigger_config: { secret_ciphertext: box.encrypt(`hook_${i}`), secret_mask: '••••' },
      status: 'draft',
      nodes: [],
      edges: [],
    })),
  };
  for (const [table, list] of Object.entries(rows)) {
    for (let i = 0; i < list.length; i += CHUNK) {
      await sql`insert into ${sql(table)} ${sql(list.slice(i, i + CHUNK) as Record<string, postgres.SerializableParameter>[])}`;
    }
  }
}

/**
 * `weft bench keys`: `weft keys rotate` over `values` sealed values on a fresh embedded PostgreSQL:
 * sealed under key A, rotated to B with A in the ring, then rotated again (everything current), and
 * the start-up check's time on that database.
 */
export async function benchKeysCommand(options: { values: number; batchSize: number; json: boolean }) {
  const say = (line: string) => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-bench-keys-'));
  const port = await freeLoopbackPort();
  const pg = await startEmbeddedPostgres({ dataDir, port, adminPassword: 'bench-admin', database: 'weft' });
  const adminUrl = pg.urlFor('weft');
  await runMigrations(adminUrl);
  await enableAppRoleLogin(adminUrl, 'bench-app');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const owner = connectDatabase(adminUrl, { max: 1 });
  const app = connectDatabase(pg.urlFor('weft', 'weft_app', 'bench-app'), { max: 1 });
  try {
    const keyA = randomBytes(32);
    const keyB = randomBytes(32);
    say(`seeding ${options.values} sealed values under key A…`);
    await seed(admin, createSecretBox(keyA), options.values);
    const ring = createSecretBox(keyB, [keyA]);
    const timed = async <T>(work: () => Promise<T>) => {
      const started = performance.now();
      const result = await work();
      return { result, ms: performance.now() - started };
    };
    const first = await timed(() => rotateSealedValues(owner.db, ring, { batchSize: options.batchSize }));
    const second = await timed(() => rotateSealedValues(owner.db, ring, { batchSize: options.batchSize }));
    const check = await timed(() => checkKeyRing(app.db, createSecretBox(keyB)));
    const perSecond = (count: number, ms: number) => Math.round((count / ms) * 1000);
    printResult(
      options.json,
      {
        values: options.values,
        batch_size: options.batchSize,
        rotate: { ...snakeCase(first.result.total), ms: Math.round(first.ms) },
        rotate_again: { ...snakeCase(second.result.total), ms: Math.round(second.ms) },
        startup_check: { ...check.result, ms: Number(check.ms.toFixed(1)) },
      },
      [
        ...first.result.columns.map((c) => `  ${c.column}: ${c.rotated} re-sealed of ${c.scanned}`),
        `rotate A→B: ${first.result.total.rotated} of ${first.result.total.scanned} re-sealed in ` +
          `${(first.ms / 1000).toFixed(2)} s (${perSecond(first.result.total.rotated, first.ms)} values/s, ` +
          `batches of ${options.batchSize})`,
        `rotate again: ${second.result.total.alreadyCurrent} already current, ${second.result.total.rotated} ` +
          `re-sealed, in ${(second.ms / 1000).toFixed(2)} s`,
        `start-up check: ${check.result.opened} of ${check.result.sampled} sampled values open, ${check.ms.toFixed(1)} ms`,
      ],
    );
  } finally {
    await app.close();
    await owner.close();
    await admin.end();
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
