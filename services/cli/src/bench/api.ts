import path from 'node:path';
import { freeLoopbackPort } from '@weft/config';
import { connectDatabase, schema, withTenant } from '@weft/db';
import { createApiKey, createOrganization } from '@weft/domain';
import postgres from 'postgres';
import { runLogDirectory, spawnService, stopChild, waitForHttp } from '../children';
import { openDatabase } from '../database';
import { dataPath, loadCliEnv } from '../project';
import { serviceBundles } from '../service-bundle';
import { type LoadRequest, runLoad } from './load';
import { processMemory } from './process-memory';
import { progressReporter } from './progress';

const WORDS = [
  'order',
  'lead',
  'invoice',
  'ticket',
  'cart',
  'payment',
  'shipment',
  'employee',
  'chat',
  'report',
];

function sampleWorkflow(i: number) {
  const word = WORDS[i % WORDS.length] as string;
  return {
    name: `${word} flow ${i}`,
    description: `Handles ${word} events, variant ${i % 97}`,
    trigger_type: 'event',
    trigger_config: { event: `${word}.created` },
    status: 'active' as const,
    nodes: [
      {
        id: 'prepare',
        type: 'action.transform',
        config: { assignments: [{ key: 'id', value: '{{trigger.id}}' }] },
      },
      {
        id: 'check',
        type: 'action.condition',
        config: { conditions: [{ left: '{{trigger.total}}', operator: 'gt', right: '100' }] },
      },
      { id: 'big', type: 'action.transform', config: { assignments: [{ key: 'tier', value: 'big' }] } },
      { id: 'small', type: 'action.transform', config: { assignments: [{ key: 'tier', value: 'small' }] } },
    ],
    edges: [
      { id: 'e1', source: 'prepare', target: 'check' },
      { id: 'e2', source: 'check', target: 'big', source_handle: 'true' },
      { id: 'e3', source: 'check', target: 'small', source_handle: 'false' },
    ],
  };
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/**
 * `weft bench api`: starts its own API server process against the project database, seeds one
 * organization with N workflows, and measures GET by id, a searched list page and POST /workflows at
 * each concurrency. Authentication, the tenancy transaction and the rate-limit counters all run as in
 * production (the limits are set high enough not to refuse the load).
 */
export async function benchApiCommand(options: {
  workflows: number;
  seconds: number;
  concurrency: number[];
}) {
  const env = loadCliEnv();
  const database = await openDatabase(env);
  const handle = connectDatabase(database.appUrl, { max: 4 });
  const org = await createOrganization(handle.db, { name: `bench ${new Date().toISOString()}` });
  const key = await createApiKey({
    ctx: { db: handle.db, organizationId: org.id, actor: {} },
    input: { name: 'bench', permissions: ['*'] },
  });

  const seedStart = performance.now();
  const ids: string[] = [];
  const seeded = progressReporter('seeding workflows', options.workflows);
  for (let offset = 0; offset < options.workflows; offset += 1000) {
    const batch = Array.from({ length: Math.min(1000, options.workflows - offset) }, (_, j) => {
      const w = sampleWorkflow(offset + j);
      return {
        organizationId: org.id,
        name: w.name,
        description: w.description,
        triggerType: w.trigger_type,
        triggerConfig: w.trigger_config,
        status: w.status,
        nodes: w.nodes,
        edges: w.edges,
      };
    });
    const rows = await withTenant(handle.db, org.id, (tx) =>
      tx.insert(schema.workflows).values(batch).returning({ id: schema.workflows.id }),
    );
    ids.push(...rows.map((r) => r.id));
    seeded(ids.length);
  }
  process.stdout.write(
    `seeded ${ids.length} workflows in ${fmt((performance.now() - seedStart) / 1000)} s\n`,
  );
  // A freshly bulk-loaded table makes every first read set hint bits (and, with data checksums, log a
  // full page image): a load artifact no running installation has. VACUUM settles it as autovacuum would.
  const admin = postgres(database.adminUrl, { max: 1, onnotice: () => {} });
  await admin`vacuum analyze workflows`;

  const port = await freeLoopbackPort();
  const server = spawnService(
    (await serviceBundles()).api,
    {
      DATABASE_URL: database.appUrl,
      PORT: String(port),
      APP_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT_PER_KEY: '1000000000',
      RATE_LIMIT_PER_ORG: '1000000000',
      TEMPORAL_ADDRESS: '',
    },
    { logFile: path.join(runLogDirectory(dataPath(env), 'bench-api'), 'api.log') },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${baseUrl}/healthz`, 60_000, () => server.exitCode === null);
    const headers = { 'x-api-key': key.key };
    let counter = 0;
    const scenarios: { name: string; expect: number; next: () => LoadRequest }[] = [
      {
        name: 'GET /workflows/{id}',
        expect: 200,
        next: () => ({
          method: 'GET',
          path: `/api/v1/workflows/${ids[Math.floor(Math.random() * ids.length)]}`,
        }),
      },
      {
        name: 'GET /workflows?per_page=100&search=…',
        expect: 200,
        next: () => ({
          method: 'GET',
          path: `/api/v1/workflows?per_page=100&search=${WORDS[counter++ % WORDS.length]}%20flow%201`,
        }),
      },
      {
        name: 'POST /workflows',
        expect: 201,
        next: () => ({
          method: 'POST',
          path: '/api/v1/workflows',
          body: JSON.stringify(sampleWorkflow(counter++)),
        }),
      },
    ];
    process.stdout.write(
      `\n${'scenario'.padEnd(38)} ${'conc'.padStart(4)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)}\n`,
    );
    for (const scenario of scenarios) {
      for (const concurrency of options.concurrency) {
        // A short warm-up so JIT and connection pools are settled before measuring.
        await runLoad({
          baseUrl,
          headers,
          concurrency,
          seconds: 1,
          next: scenario.next,
          expectStatus: scenario.expect,
        });
        const r = await runLoad({
          baseUrl,
          headers,
          concurrency,
          seconds: options.seconds,
          next: scenario.next,
          expectStatus: scenario.expect,
        });
        process.stdout.write(
          `${scenario.name.padEnd(38)} ${String(concurrency).padStart(4)} ${fmt(r.perSecond, 0).padStart(8)} ${fmt(r.p50, 2).padStart(8)} ${fmt(r.p99, 2).padStart(8)} ${String(r.errors).padStart(7)}\n`,
        );
      }
    }
    const memory = server.pid ? processMemory(server.pid) : undefined;
    process.stdout.write(
      `\nAPI server RSS: ${fmt(memory?.rssMiB ?? Number.NaN)} MiB (peak ${fmt(memory?.peakMiB ?? Number.NaN)} MiB)\n`,
    );
  } finally {
    await stopChild(server);
    await handle.close();
    // Remove the bench organization (cascades to its workflows, keys and audit rows) so that repeated
    // runs measure the same database. Deleting organizations is an owner-only operation.
    await admin`delete from organizations where id = ${org.id}`;
    await admin.end();
    await database.stop();
  }
}
