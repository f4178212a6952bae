import { z } from 'zod';
import { Template } from '../common';
import { defineNodeType, MAIN_OUTPUT } from '../define';

export const AiPromptConfig = z.object({
  prompt: Template.min(1),
  system: Template.optional(),
  model: z.string().min(1).max(128).optional(),
  max_tokens: z.number().int().min(1).max(32_000).default(1024),
  temperature: z.number().min(0).max(2).default(0.7),
  /** Parse the answer as JSON. */
  json: z.boolean().default(false),
});

export const aiPrompt = defineNodeType({
  type: 'action.ai.prompt',
  name: 'AI prompt',
  category: 'ai',
  description: 'Sends a prompt to the organization AI module and returns the answer.',
  icon: 'sparkles',
  config: AiPromptConfig,
  output: z.object({
    text: z.string(),
    json: z.unknown().optional(),
    model: z.string(),
    usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
    finish_reason: z.string().nullable(),
  }),
  outputs: MAIN_OUTPUT,
  runner: async () => (await import('./run')).aiPromptRunner,
  module: 'ai',
});
