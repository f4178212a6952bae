/**
 * Local stand-ins of the systems the templates talk to, for templates-e2e.test.ts: an HTTP target
 * that answers a template's `sample.http_responses`, the chat cloud provider (Graph API JSON) with
 * a given list of approved templates, an OpenAI-compatible AI provider, and an SMTP server. Each
 * records what it received, so a test can match every step's output to a request that really came.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export const BUSINESS_ACCOUNT_ID = '102290129340398';
export const PHONE_NUMBER_ID = '106540352242922';
export const CHAT_ACCESS_TOKEN = 'templates-e2e-access-token';
export const AI_API_KEY = 'sk-templates-e2e';
export const SMTP_USER = 'weft';
export const SMTP_PASSWORD = 'smtp-pass-templates';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => resolve(raw));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export interface HttpCall {
  method: string;
  /** Path and query, as requested. */
  path: string;
  body: string;
}

export interface HttpTarget {
  url: string;
  calls: HttpCall[];
  close(): Promise<void>;
}

/**
 * The systems a template calls, all on one origin: `METHOD /path?query` or `METHOD /path` of
 * `responses` answers with that JSON, anything else with `{"ok": true}`.
 */
export async function startHttpTarget(responses: Record<string, unknown> = {}): Promise<HttpTarget> {
  const calls: HttpCall[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    calls.push({ method, path, body });
    const pathname = new URL(path, 'http://target').pathname;
    const answer = responses[`${method} ${path}`] ?? responses[`${method} ${pathname}`] ?? { ok: true };
    json(res, 200, answer);
  });
  const url = await listen(server);
  return { url, calls, close: () => close(server) };
}

export interface ChatTemplateSpec {
  name: string;
  language: string;
  variables: number;
}

export interface ChatFake {
  url: string;
  /** Message bodies the provider accepted, with the id it answered. */
  sent: { id: string; body: any }[];
  close(): Promise<void>;
}

/**
 * The chat cloud provider: `message_templates` lists `templates` as APPROVED (their body has one
 * `{{n}}` per variable), and `messages` accepts any text or template for the module's number.
 */
export async function startChatFake(templates: ChatTemplateSpec[]): Promise<ChatFake> {
  const sent: ChatFake['sent'] = [];
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://chat');
    if (req.headers.authorization !== `Bearer ${CHAT_ACCESS_TOKEN}`) {
      return json(res, 401, { error: { code: 190, message: 'Invalid OAuth access token.' } });
    }
    if (req.method === 'GET' && url.pathname === `/v21.0/${BUSINESS_ACCOUNT_ID}/message_templates`) {
      return json(res, 200, {
        data: templates.map((t) => ({
          name: t.name,
          language: t.language,
          status: 'APPROVED',
          category: 'UTILITY',
          components: [
            {
              type: 'BODY',
              text: `Template ${t.name}${Array.from({ length: t.variables }, (_, i) => ` {{${i + 1}}}`).join('')}`,
            },
          ],
        })),
      });
    }
    if (req.method === 'POST' && url.pathname === `/v21.0/${PHONE_NUMBER_ID}/messages`) {
      const body = JSON.parse(raw || '{}');
      const id = `wamid.E2E${sent.length + 1}`;
      sent.push({ id, body });
      return json(res, 200, {
        messaging_product: 'whatsapp',
        contacts: [{ input: body.to, wa_id: body.to }],
        messages: [{ id }],
      });
    }
    json(res, 404, { error: { code: 100, message: `no route ${req.method} ${url.pathname}` } });
  });
  const url = await listen(server);
  return { url, sent, close: () => close(server) };
}

export interface AiFake {
  url: string;
  /** Each chat-completions request and the text answered. */
  requests: { body: any; reply: string }[];
  close(): Promise<void>;
}

/** A scripted answer: tool calls (several = parallel calls in one turn) and/or text. */
export interface AiTurn {
  text?: string;
  tool_calls?: { name: string; arguments: Record<string, unknown> }[];
}

/**
 * An OpenAI-compatible chat-completions endpoint (`POST /v1/chat/completions`) answering `reply()`:
 * a text, or a turn with tool calls in the wire format (`tool_calls`, JSON-string arguments).
 */
export async function startAiFake(reply: () => string | AiTurn): Promise<AiFake> {
  const requests: AiFake['requests'] = [];
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    if (req.headers.authorization !== `Bearer ${AI_API_KEY}`) {
      return json(res, 401, { error: { message: 'bad key' } });
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return json(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
    }
    const body = JSON.parse(raw || '{}');
    const answer = reply();
    const turn: AiTurn = typeof answer === 'string' ? { text: answer } : answer;
    const calls = turn.tool_calls ?? [];
    const content = turn.text ?? '';
    requests.push({ body, reply: content });
    json(res, 200, {
      model: body.model ?? 'local-model',
      choices: [
        {
          message: {
            role: 'assistant',
            content: turn.text ?? null,
            ...(calls.length > 0
              ? {
                  tool_calls: calls.map((call, i) => ({
                    id: `call_${requests.length}_${i}`,
                    type: 'function',
                    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                  })),
                }
              : {}),
          },
          finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        },
      ],
      usage: { prompt_tokens: 42, completion_tokens: 17 },
    });
  });
  const url = await listen(server);
  return { url, requests, close: () => close(server) };
}

export interface SmtpFake {
  port: number;
  received: { envelope: string[]; mail: ParsedMail }[];
  close(): Promise<void>;
}

/** A plain SMTP server on loopback with one account; every message it accepts is parsed and kept. */
export async function startSmtpFake(): Promise<SmtpFake> {
  const received: SmtpFake['received'] = [];
  const smtp = new SMTPServer({
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) {
        return callback(null, { user: SMTP_USER });
      }
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        received.push({
          envelope: session.envelope.rcptTo.map((r) => r.address),
          mail: await simpleParser(Buffer.concat(chunks)),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  return {
    port: (smtp.server.address() as AddressInfo).port,
    received,
    close: () => new Promise<void>((resolve) => smtp.close(resolve)),
  };
}
