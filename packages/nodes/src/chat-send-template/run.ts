import { NodeRunError, type NodeRunner } from '../runner';
import { chatModuleOf, recipientOf, sendOnce } from '../shared/chat/deliver';
import { ChatSendTemplateConfig } from './schema';

/** action.chat.send_template: an approved template, inside or outside the window; variables in order. */
export const chatSendTemplateRunner: NodeRunner = {
  async run(rawConfig, ctx) {
    const config = ChatSendTemplateConfig.parse(rawConfig);
    const to = recipientOf(String(config.to));
    const module = await chatModuleOf(ctx, 'action.chat.send_template');
    const variables = (config.variables ?? []).map(String);
    // Both providers' templates are synced (the gateway's by content SID) and checked before sending.
    const template = await ctx.chatTemplate(config.template_name, config.language);
    if (template?.status !== 'APPROVED') {
      throw new NodeRunError(
        'template_not_approved',
        `Template ${config.template_name} (${config.language}) is ${template ? template.status.toLowerCase() : 'unknown to the provider'}; only approved templates can be sent`,
        false,
      );
    }
    if (template.bodyVariables !== variables.length) {
      throw new NodeRunError(
        'template_variables',
        `Template ${config.template_name} takes ${template.bodyVariables} variable(s), the node gives ${variables.length}`,
        false,
      );
    }
    return sendOnce(ctx, async () => {
      const sent = await ctx.sendChat(module, {
        to: to.e164,
        template: {
          name: config.template_name,
          language: config.language,
          variables,
        },
      });
      return { sent_as: 'template', message_id: sent.messageId, to: to.masked };
    });
  },
};
