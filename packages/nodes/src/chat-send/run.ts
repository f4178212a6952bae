import { NodeRunError, type NodeRunner } from '../runner';
import { chatModuleOf, recipientOf, sendOnce, trySend } from '../shared/chat/deliver';
import { ChatSendConfig } from './schema';

/** The language of a fallback template given as a bare name; `name:language` picks another. */
const DEFAULT_TEMPLATE_LANGUAGE = 'en_US';

/**
 * action.chat.send: free-form text while the 24-hour window is open; when it is closed (by our clock
 * or by the provider's answer, so the two cannot disagree silently) the fallback template goes
 * instead, or the step fails with `window_closed`.
 */
export const chatSendRunner: NodeRunner = {
  async run(rawConfig, ctx) {
    const config = ChatSendConfig.parse(rawConfig);
    const to = recipientOf(String(config.to));
    const module = await chatModuleOf(ctx, 'action.chat.send');
    return sendOnce(ctx, async () => {
      if ((await ctx.chatWindow(to.hash)).open) {
        const sent = await trySend(ctx, module, { to: to.e164, text: String(config.message) });
        if (sent !== 'window_closed') return { sent_as: 'text', message_id: sent.messageId, to: to.masked };
      }
      if (!config.fallback_template) {
        throw new NodeRunError(
          'window_closed',
          'The 24-hour window is closed and the node has no fallback_template',
          false,
        );
      }
      const [name, language = DEFAULT_TEMPLATE_LANGUAGE] = config.fallback_template.split(':');
      const sent = await trySend(ctx, module, {
        to: to.e164,
        template: { name: name as string, language, variables: [] },
      });
      if (sent === 'window_closed')
        throw new NodeRunError('window_closed', 'The provider refused the fallback template too', false);
      return { sent_as: 'template', message_id: sent.messageId, to: to.masked };
    });
  },
};
