/**
 * Effectively once for chat sends (DESIGN §12.1): the worker is killed with SIGKILL the moment the
 * provider has answered, before the activity can complete. The retried activity on a new worker
 * must not send again: the provider gets each message exactly once, whatever the step then says
 * (completed with the stored answer, or send_outcome_unknown when the answer was never recorded).
 */
import { createServer, type Server } from 'node:http';
import { phoneIdentity } from '@weft/nodes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStack, createWorkflow, execute, type ServiceProcess, type Stack } from './support';

const TO = '+14155550123';
let stack: Stack;
let org: { organizationId: string; key: string };
let provider: Server;
let worker: ServiceProcess | undefined;
const received: string[] = [];
let killOnNextSend = false;
/** Resolves the test's wait for the kill with the killed worker's exit. */
let onKill: ((exited: Promise<string> | undefined) => void) | undefined;

beforeAll(async () => {
  provider = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push(body.text?.body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.K${received.length}` }] }),
        () => {
          // The answer is on its way: the worker dies before it can record it and complete.
          if (killOnNextSend) {
            killOnNextSend = false;
            onKill?.(worker?.kill());
          }
        },
      );
    });
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  const address = provider.address();
  stack = await createStack({
    chatCloudBaseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
  });
  org = await stack.createOrg();
  const configured = await stack.request('PUT', '/api/v1/modules/chat', {
    key: org.key,
    body: {
      provider: 'cloud',
      business_account_id: '102290129340398',
      phone_number_id: '106540352242922',
      access_token: 'token',
      app_secret: 'app-secret',
      verify_token: 'verify',
    },
  });
  expect(configured.status).toBe(200);
  const hash = phoneIdentity(TO)?.hash as string;
  await stack.db.admin`
    insert into chat_conversations (organization_id, phone_hash, last_inbound_at, window_expires_at)
    values (${org.organizationId}, ${hash}, now(), now() + interval '24 hours')`;
  worker = await stack.startWorker();
}, 120_000);

afterAll(async () => {
  await stack?.close();
  provider?.close();
});

describe('a worker killed right after the provider answered', () => {
  it('never sends the message twice', async () => {
    const workflowId = await createWorkflow(stack, org.key, {
      name: 'send once',
      nodes: [
        { id: 'send', type: 'action.chat.send', config: { to: TO, message: 'only once {{trigger.n}}' } },
      ],
    });
    for (const n of [1, 2]) {
      const killed = new Promise<string | undefined>((resolve) => {
        onKill = resolve;
      });
      killOnNextSend = true;
      const executionId = await execute(stack, org.key, workflowId, { n });
      // Wait for the kill and the old worker's exit, then bring a new worker: Temporal retries the
      // activity on it.
      expect(await killed).toBe('SIGKILL');
      worker = await stack.startWorker();
      const execution = await stack.waitForExecution(
        org.key,
        executionId,
        (e) => ['success', 'partial', 'failed'].includes(e.status),
        60_000,
      );
      const step = execution.steps.find((s: any) => s.node_id === 'send');
      expect(received.filter((text) => text === `only once ${n}`)).toHaveLength(1);
      if (step.status === 'completed') expect(step.output.message_id).toMatch(/^wamid\.K\d+$/);
      else expect(step.error.code).toBe('send_outcome_unknown');
    }
    expect(received).toHaveLength(2);
  }, 180_000);
});
