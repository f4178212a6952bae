import { chatModuleOf, recipientOf, sendOnce } from '../chat/deliver';
import type { NodeRunner } from '../runner';
import { ChatSendTemplateConfig } from './schema';

/** action.chat.send_template: an approved template, inside or outside the window; variables in order. */
export const chatSendTemplateRunner: NodeRunner = {
  async run(rawConfig, ctx) {
    const config = ChatSendTemplateConfig.parse(rawConfig);
    const to = recipientOf(String(config.to));
    const module = await chatModuleOf(ctx, 'action.chat.send_template');
    return sendOnce(ctx, async () => {
      const sent = await ctx.sendChat(module, {
        to: to.e164,
        template: {
          name: config.template_name,
          language: config.language,
          variables: (config.variables ?? []).map(String),
        },
      });
      return { sent_as: 'template', message_id: sent.messageId, to: to.masked };
    });
  },
};
