import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { AiPromptConfig } from './schema';

describe('action.ai.prompt config', () => {
  it('is the schema registered for action.ai.prompt', () => {
    expect(getNodeType('action.ai.prompt')?.config).toBe(AiPromptConfig);
  });

  it('accepts a prompt and defaults max_tokens, temperature and json', () => {
    expect(AiPromptConfig.parse({ prompt: 'Say hi' })).toEqual({
      prompt: 'Say hi',
      max_tokens: 1024,
      temperature: 0.7,
      json: false,
    });
  });

  it('refuses an empty prompt, temperature above 2 and fractional max_tokens', () => {
    expect(AiPromptConfig.safeParse({ prompt: '' }).success).toBe(false);
    expect(AiPromptConfig.safeParse({ prompt: 'x', temperature: 2.5 }).success).toBe(false);
    expect(AiPromptConfig.safeParse({ prompt: 'x', max_tokens: 10.5 }).success).toBe(false);
  });
});
