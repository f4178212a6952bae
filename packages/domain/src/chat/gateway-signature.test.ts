import { describe, expect, it } from 'vitest';
import { gatewaySignature, validGatewaySignature } from './gateway-signature';

describe('the gateway signature (X-Twilio-Signature)', () => {
  it("matches the provider's documented vector", () => {
    const params: [string, string][] = [
      ['CallSid', 'CA1234567890ABCDE'],
      ['Caller', '+12349013030'],
      ['Digits', '1234'],
      ['From', '+12349013030'],
      ['To', '+18005551212'],
    ];
    expect(gatewaySignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', params)).toBe(
      '0/KCTR6DLpKmkAf8muzZqo1nDgQ=',
    );
  });

  it('matches the WhatsApp-shaped vector, in any parameter order, with or without :443', () => {
    const params: [string, string][] = [
      ['WaId', '14155550100'],
      ['To', 'whatsapp:+14155238886'],
      ['ProfileName', 'Ada'],
      ['NumMedia', '0'],
      ['MessageSid', `SM${'0'.repeat(32)}`],
      ['From', 'whatsapp:+14155550100'],
      ['Body', 'Hello'],
      ['AccountSid', `AC${'0'.repeat(32)}`],
    ];
    const url = 'https://app.example.test/webhooks/chat/gateway/abc';
    expect(gatewaySignature('test_auth_token', url, params)).toBe('dqSKNN2B6VllOiqNicTrWMpWNmE=');
    expect(validGatewaySignature('test_auth_token', url, params, 'dqSKNN2B6VllOiqNicTrWMpWNmE=')).toBe(true);
    const signedWithPort = gatewaySignature(
      'test_auth_token',
      'https://app.example.test:443/webhooks/chat/gateway/abc',
      params,
    );
    expect(validGatewaySignature('test_auth_token', url, params, signedWithPort)).toBe(true);
    expect(validGatewaySignature('other', url, params, 'dqSKNN2B6VllOiqNicTrWMpWNmE=')).toBe(false);
    expect(
      validGatewaySignature(
        'test_auth_token',
        url,
        [...params, ['Extra', '1']],
        'dqSKNN2B6VllOiqNicTrWMpWNmE=',
      ),
    ).toBe(false);
    expect(validGatewaySignature('test_auth_token', url, params, undefined)).toBe(false);
  });
});
