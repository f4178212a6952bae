import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { ChatSendTemplateConfig } from './schema';

describe('action.chat.send_template config', () => {
  it('is the schema registered for action.chat.send_template', () => {
    expect(getNodeType('action.chat.send_template')?.config).toBe(ChatSendTemplateConfig);
  });

  it('accepts language codes like en and en_US', () => {
    for (const language of ['en', 'en_US', 'pt_BR', 'fil']) {
      expect(
        ChatSendTemplateConfig.safeParse({ to: '+15551234567', template_name: 'welcome', language }).success,
        language,
      ).toBe(true);
    }
  });

  it("refuses language 'english', 'en-US' and 'EN'", () => {
    for (const language of ['english', 'en-US', 'EN', 'en_us']) {
      const result = ChatSendTemplateConfig.safeParse({
        to: '+15551234567',
        template_name: 'welcome',
        language,
      });
      expect(result.success, language).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(['language']);
    }
  });
});
