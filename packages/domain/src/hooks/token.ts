import { randomToken } from '../random-token';

/** 32 random bytes, base64url: the secret part of an inbound hook URL. */
export function generateHookToken(): string {
  return randomToken();
}

/** A token of the generated shape; anything else is answered 404 without touching the database. */
export function isWellFormedHookToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}

/** `{site_url}/api/hooks/<token>`: outside /api/v1 because it takes no API key. */
export function hookUrl(siteUrl: string, token: string): string {
  return `${siteUrl.replace(/\/+$/, '')}/api/hooks/${token}`;
}

/**
 * Trigger types whose workflow has a public token (the `webhook_token` column): webhooks
 * (`/api/hooks/<token>`) and forms (`/forms/<token>`). The trigger type decides which door it opens.
 */
export function hasPublicToken(triggerType: string): boolean {
  return triggerType === 'webhook' || triggerType === 'form';
}

/** `{site_url}/forms/<token>`: the hosted page of a form-triggered workflow. */
export function formUrl(siteUrl: string, token: string): string {
  return `${siteUrl.replace(/\/+$/, '')}/forms/${token}`;
}
