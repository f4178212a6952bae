import { moduleNotConfiguredRunner } from '../module-not-configured';

/** Sends through the organization's chat module; until that module exists, every run fails clearly. */
export const chatSendTemplateRunner = moduleNotConfiguredRunner('action.chat.send_template', 'chat');
