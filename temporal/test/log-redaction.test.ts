/**
 * No secret in any log line: an HTTP step that fails against an upstream answering 401 with a
 * challenge and a body echoing the credential logs (API, worker, Temporal SDK: all one logger in
 * this process, written to this test file's log) neither the password nor the Authorization value.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { testLogFile } from '@weft/telemetry';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';

const USERNAME = 'integration-user';
const PASSWORD = 'pw-7c1f0e9a4b2d8-ECHOED';
const AUTHORIZATION = `Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}`;

let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: Server;
let baseUrl: string;
const seen: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    const sent = req.headers.authorization ?? '';
    const decoded = Buffer.from(sent.replace(/^Basic /, ''), 'base64').toString();
    res.writeHead(401, {
      'content-type': 'application/json',
      'www-authenticate': 'Basic realm="upstream", charset="UTF-8"',
      'set-cookie': `upstream_session=${PASSWORD}; HttpOnly`,
    });
    // A careless upstream: it echoes the credential back, raw and decoded.
    res.end(
      JSON.stringify({ error: 'bad credentials', you_sent: sent, decoded, hint: `password ${PASSWORD}` }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
  server?.close();
});

async function post(path: string, body: unknown) {
  const res = await h.request('POST', path, { key: org.key, body });
  return { status: res.status, json: (await res.json()) as any };
}

describe('a failing HTTP step', () => {
  it('logs its failure without the credential, the echoed body or the upstream cookie', async ({
    expect,
  }) => {
    const credential = await post('/api/v1/credentials', {
      name: 'Upstream basic',
      type: 'http_basic',
      fields: { username: USERNAME, password: PASSWORD },
    });
    expect(credential.status).toBe(201);
    const workflow = await post('/api/v1/workflows', {
      name: 'refused call',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'call',
          type: 'action.http_request',
          config: { url: `${baseUrl}/private?api_key=${PASSWORD}`, credential_id: credential.json.id },
        },
      ],
    });
    expect(workflow.status, JSON.stringify(workflow.json)).toBe(201);
    const started = await post(`/api/v1/workflows/${workflow.json.id}/execute`, { input: {} });
    const execution = await h.waitForExecution(org.key, started.json.execution_id);
    const step = execution.steps.find((s: any) => s.node_id === 'call');
    expect(step.status).toBe('failed');
    expect(step.error.code).toBe('http_status');
    expect(seen).toEqual([AUTHORIZATION]);

    // The failure is logged (activity, SDK and workflow lines); none of them holds a secret.
    const file = testLogFile(expect.getState().testPath);
    const failureLines = () =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.includes(started.json.execution_id) || line.includes('HTTP 401'));
    await expect
      .poll(() => failureLines().some((l) => l.includes('step failed')), { timeout: 30_000 })
      .toBe(true);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(failureLines().length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      expect(line).not.toContain(PASSWORD);
      expect(line).not.toContain(AUTHORIZATION.slice('Basic '.length));
      expect(line).not.toContain(encodeURIComponent(PASSWORD));
    }
    // The upstream's answer did reach the logger (the activity failure's details), redacted.
    const logged = lines.join('\n');
    expect(logged).toContain('"you_sent":"Basic [redacted]"');
    expect(logged).toContain('"decoded":"integration-user:[redacted]"');
    expect(logged).toContain('"set-cookie":"[redacted]"');
    expect(logged).toContain('"www-authenticate":"Basic realm=\\"upstream\\", charset=\\"UTF-8\\""');
  });
});
