import { z } from 'zod';
import { E164OrTemplate, Template } from '../common';
import { defineNodeType, MAIN_OUTPUT } from '../define';
import { chatSendTemplateWorkflow } from './workflow';

export const ChatSendTemplateConfig = z.object({
  to: E164OrTemplate,
  /** The approved template's name (cloud) or content SID (gateway): letters, digits and `_` only. */
  template_name: z.string().regex(/^[A-Za-z0-9_]{1,512}$/, 'must be a template name: letters, digits and _'),
  language: z.string().regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'must be a language code like en or en_US'),
  variables: z.array(Template).max(50).optional(),
});

export const chatSendTemplate = defineNodeType({
  type: 'action.chat.send_template',
  name: 'Send chat template',
  category: 'messaging',
  description: 'Sends an approved template; works inside and outside the 24-hour window.',
  icon: 'chat',
  config: ChatSendTemplateConfig,
  output: z.object({ sent_as: z.literal('template'), message_id: z.string(), to: z.string() }),
  outputs: MAIN_OUTPUT,
  workflow: chatSendTemplateWorkflow,
  runner: async () => (await import('./run')).chatSendTemplateRunner,
  module: 'chat',
});
