import { api } from '$api/client';
import type { components } from '$api/schema';

/**
 * What a sign-in form needs from GET /auth/config (wizard open, sign-up on, captcha), and the
 * captcha token to send with the form.
 */
export class SignInConfig {
  config = $state<components['schemas']['AuthConfig'] | null>(null);
  captchaToken = $state('');
  /** Set by the widget: fetches a fresh token (reCAPTCHA v3 scores each submit). */
  getCaptchaToken = $state<() => Promise<string>>();

  async load() {
    this.config = (await api.GET('/auth/config')).data ?? null;
    return this.config;
  }

  /** The token to send in `captcha_token`, or undefined when the captcha is off. */
  async tokenForSubmit(): Promise<string | undefined> {
    if (!this.config?.captcha) return undefined;
    return (await this.getCaptchaToken?.()) ?? this.captchaToken;
  }
}
