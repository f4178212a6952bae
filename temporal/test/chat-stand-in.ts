/**
 * A local stand-in of both chat providers that speaks their wire formats: the cloud Graph API
 * (messages, message_templates with two pages) and the gateway (Messages.json, Content API).
 * Records what was sent, for assertions.
 */
import { createServer, type Server } from 'node:http';

export const PHONE_NUMBER_ID = '106540352242922';
export const CLOUD_ACCESS_TOKEN = 'cloud-access-token';
/**
 * A number of E.164 shape that is no chat user: both providers refuse a send to it with their real
 * error (cloud 131026 "Message undeliverable", gateway 63003 "Channel could not find To address").
 */
export const NOT_A_CHAT_USER = '+15550109999';

export interface ChatStandIn {
  url: string;
  /** Cloud message bodies, in order. */
  sent: any[];
  /** Gateway form posts, in order. */
  gatewaySent: Record<string, string>[];
  /** How many template-list pages were asked for. */
  templateLists: () => number;
  close(): void;
}

export async function startChatStandIn(): Promise<ChatStandIn> {
  const sent: any[] = [];
  const gatewaySent: Record<string, string>[] = [];
  let templateLists = 0;
  let provider: Server;
  provider = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const body = req.headers['content-type']?.includes('json') ? JSON.parse(raw || '{}') : {};
      const json = (status: number, answer: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      };
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname === '/v1/ContentAndApprovals') {
        return json(200, {
          contents: [
            {
              sid: `HX${'a'.repeat(32)}`,
              language: 'en',
              variables: { '1': 'name' },
              approval_requests: { name: 'greeting', category: 'UTILITY', status: 'approved' },
            },
            {
              sid: `HX${'b'.repeat(32)}`,
              language: 'en',
              variables: {},
              approval_requests: { whatsapp: { status: 'pending' } },
            },
          ],
          meta: { next_page_url: null },
        });
      }
      if (url.pathname.startsWith('/2010-04-01/Accounts/') && req.method === 'POST') {
        const form = Object.fromEntries(new URLSearchParams(raw));
        if (form.To === `whatsapp:${NOT_A_CHAT_USER}`) {
          return json(400, {
            code: 63003,
            message: `Channel could not find To address ${form.To}`,
            status: 400,
          });
        }
        gatewaySent.push(form);
        return json(201, { sid: `SM${String(gatewaySent.length).padStart(32, '0')}`, status: 'queued' });
      }
      if (url.pathname === '/v21.0/102290129340398/message_templates') {
        templateLists++;
        if (url.searchParams.get('after') === 'page2') {
          return json(200, {
            data: [
              { name: 'promo', language: 'en_US', status: 'PENDING', category: 'MARKETING', components: [] },
            ],
          });
        }
        return json(200, {
          data: [
            {
              name: 'order_update',
              language: 'en_US',
              status: 'APPROVED',
              category: 'UTILITY',
              components: [{ type: 'BODY', text: 'Hi {{1}}, order {{2}} has shipped' }],
            },
          ],
          // The next page on the same provider is followed; Meta gives absolute URLs.
          paging: { next: `http://${req.headers.host}${url.pathname}?after=page2` },
        });
      }
      if (req.url !== `/v21.0/${PHONE_NUMBER_ID}/messages`)
        return json(404, { error: { code: 100, message: 'no' } });
      if (req.headers.authorization !== `Bearer ${CLOUD_ACCESS_TOKEN}`) {
        return json(401, { error: { code: 190, message: 'Invalid OAuth access token.' } });
      }
      if (body.to === NOT_A_CHAT_USER.slice(1)) {
        return json(400, {
          error: { code: 131026, message: 'Message undeliverable', type: 'OAuthException' },
        });
      }
      sent.push(body);
      json(200, {
        messaging_product: 'whatsapp',
        contacts: [{ input: body.to, wa_id: body.to }],
        messages: [{ id: `wamid.FAKE${sent.length}` }],
      });
    });
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  const address = provider.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    sent,
    gatewaySent,
    templateLists: () => templateLists,
    close: () => provider.close(),
  };
}
