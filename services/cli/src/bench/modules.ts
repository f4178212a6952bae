import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { phoneIdentity } from '@weft/nodes';
import { describeCost } from './cost-probe';
import { closedLoop } from './load';
import { fmt, startBenchStack } from './stack';
import { createTerminalWatcher } from './terminal-watcher';

const PHONE_NUMBER_ID = '106540352242922';
/** Numbers the sends go to: each gets an open 24-hour window first. */
const RECIPIENTS = Array.from({ length: 100 }, (_, i) => `+1415555${String(1000 + i)}`);

/**
 * `weft bench modules`: chat sends through the message outbox, end to end. A local stand-in of the
 * cloud chat provider answers like the Graph API; each execution is one `action.chat.send` inside an
 * open window (claim, provider call, completion, step record), counted when its record is terminal.
 * Reports sends/s, latency, CPU ms per send, and checks that the provider got each message once.
 */
export async function benchModulesCommand(options: { sends: number; concurrency: number }) {
  const received = new Map<string, number>();
  const provider = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        to: string;
        text?: { body: string };
      };
      const key = `${body.to}:${body.text?.body}`;
      received.set(key, (received.get(key) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.BENCH${received.size}` }] }),
      );
    });
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  const providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  const stack = await startBenchStack({
    extraEnv: { SSRF_ALLOWLIST: '127.0.0.1/32', CHAT_CLOUD_BASE_URL: providerUrl },
  });
  const { call, admin, probe } = stack;
  const watcher = createTerminalWatcher(admin);
  try {
    await call('PUT', '/modules/chat', {
      provider: 'cloud',
      business_account_id: '102290129340398',
      phone_number_id: PHONE_NUMBER_ID,
      access_token: 'bench-token',
      app_secret: 'bench-app-secret',
      verify_token: 'bench-verify',
    });
    for (const number of RECIPIENTS) {
      const hash = phoneIdentity(number)?.hash as string;
      await admin`
        insert into chat_conversations (organization_id, phone_hash, last_inbound_at, window_expires_at)
        values (${stack.organizationId}, ${hash}, now(), now() + interval '24 hours')
        on conflict do nothing`;
    }
    const workflow = await call('POST', '/workflows', {
      name: 'bench chat send',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'send',
          type: 'action.chat.send',
          config: { to: '{{trigger.to}}', message: 'order {{trigger.n}}' },
        },
      ],
    });
    const run = async (n: number) => {
      const accepted = await call('POST', `/workflows/${workflow.id}/execute`, {
        input: { to: RECIPIENTS[n % RECIPIENTS.length], n },
      });
      const status = await watcher.terminal(accepted.execution_id);
      if (status !== 'success') throw new Error(`execution ended ${status}`);
    };
    for (let i = 0; i < 20; i++) await run(i); // warm-up
    received.clear();
    const before = await probe.begin();
    const result = await closedLoop(options.sends, options.concurrency, run, {
      label: `chat sends c${options.concurrency}`,
    });
    const cost = await probe.end(before, options.sends);
    const duplicates = [...received.values()].filter((count) => count > 1).length;
    process.stdout.write(
      `\nchat sends through the outbox (manual run → action.chat.send → provider → terminal record)\n` +
        `  concurrency ${options.concurrency}: ${fmt(result.perSecond)} sends/s, p50 ${fmt(result.p50, 2)} ms, ` +
        `p99 ${fmt(result.p99, 2)} ms; provider got ${received.size} distinct messages, ${duplicates} more than once\n`,
    );
    for (const line of describeCost(cost)) process.stdout.write(`${line}\n`);
  } finally {
    await stack.stop();
    provider.close();
  }
}
