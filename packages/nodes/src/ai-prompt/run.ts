import type { NodeRunner } from '../runner';
import { NodeRunError } from '../runner';
import { callModel, openAiModule, parseJsonAnswer } from '../shared/ai/client';
import { userText } from '../shared/ai/messages';
import { AiPromptConfig } from './schema';

/** action.ai.prompt through the organization's AI module (OpenAI-compatible or Anthropic). */
export const aiPromptRunner: NodeRunner = {
  async run(rawConfig, ctx) {
    const config = AiPromptConfig.parse(rawConfig);
    const module = await openAiModule(ctx, 'action.ai.prompt');
    const { text, model, usage, finish_reason } = await callModel(ctx, module, {
      ...(config.model ? { model: config.model } : {}),
      ...(config.system ? { system: config.system } : {}),
      messages: [userText(config.prompt)],
      max_tokens: config.max_tokens,
      temperature: config.temperature,
      json: config.json,
    });
    const answer = { text, model, usage, finish_reason };
    if (!config.json) return answer;
    try {
      return { ...answer, json: parseJsonAnswer(answer.text) };
    } catch {
      throw new NodeRunError('ai_invalid_json', 'The AI answer is not valid JSON', false, {
        text: answer.text,
      });
    }
  },
};
