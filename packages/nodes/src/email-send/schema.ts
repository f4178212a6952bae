import { z } from 'zod';
import { Template } from '../common';
import { defineNodeType, MAIN_OUTPUT } from '../define';

const Recipients = z.union([Template.min(1), z.array(Template.min(1)).min(1).max(50)]);

export const EmailSendConfig = z.object({
  to: Recipients,
  cc: Recipients.optional(),
  bcc: Recipients.optional(),
  subject: Template.min(1).max(998),
  body: Template,
  html: Template.optional(),
  reply_to: Template.optional(),
});

export const emailSend = defineNodeType({
  type: 'action.email.send',
  name: 'Send e-mail',
  category: 'messaging',
  description: 'Sends an e-mail through the organization e-mail module (SMTP).',
  icon: 'mail',
  config: EmailSendConfig,
  output: z.object({ message_id: z.string(), accepted: z.array(z.string()), rejected: z.array(z.string()) }),
  outputs: MAIN_OUTPUT,
  runner: async () => (await import('./run')).emailSendRunner,
  module: 'email',
});
