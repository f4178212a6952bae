import { z } from 'zod';
import { E164OrTemplate, Template } from '../common';
import { defineNodeType, MAIN_OUTPUT } from '../define';
import { chatSendWorkflow } from './workflow';

export const ChatSendConfig = z.object({
  to: E164OrTemplate,
  message: Template.min(1).max(4096),
  /** Template sent instead when the 24-hour window is closed: `name` (en_US) or `name:language`. */
  fallback_template: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,512}(:[a-z]{2,3}(_[A-Z]{2})?)?$/, 'must be a template name, optionally :language')
    .optional(),
});

export const chatSend = defineNodeType({
  type: 'action.chat.send',
  name: 'Send chat message',
  category: 'messaging',
  description: 'Sends free-form text inside the 24-hour window, else the fallback template.',
  icon: 'chat',
  config: ChatSendConfig,
  output: z.object({ sent_as: z.enum(['text', 'template']), message_id: z.string(), to: z.string() }),
  outputs: MAIN_OUTPUT,
  workflow: chatSendWorkflow,
  runner: async () => (await import('./run')).chatSendRunner,
  module: 'chat',
});
