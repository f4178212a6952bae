import { moduleNotConfiguredRunner } from '../module-not-configured';

/** Sends through the organization's AI module; until that module exists, every run fails clearly. */
export const aiPromptRunner = moduleNotConfiguredRunner('action.ai.prompt', 'AI');
