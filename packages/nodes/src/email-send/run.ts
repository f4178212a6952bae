import { moduleNotConfiguredRunner } from '../module-not-configured';

/** Sends through the organization's e-mail module; until that module exists, every run fails clearly. */
export const emailSendRunner = moduleNotConfiguredRunner('action.email.send', 'e-mail');
