import { z } from 'zod';
import { validationError } from '../errors';

export interface CaptchaSettings {
  provider: 'hcaptcha' | 'recaptcha';
  siteKey: string;
  secret: string;
  /** CAPTCHA_VERIFY_URL, for tests; otherwise the provider's siteverify endpoint. */
  verifyUrl?: string;
  /** The widget's script, for the sign-in pages. */
  scriptUrl?: string;
}

const VERIFY_URLS = {
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
} as const;

/** reCAPTCHA v3 answers a score; below this the request is treated as a bot's. */
export const RECAPTCHA_MIN_SCORE = 0.5;

const VerifyAnswer = z.object({ success: z.boolean(), score: z.number().optional() });

const refused = () =>
  validationError(
    { captcha_token: ['The captcha check failed; please try again.'] },
    'The captcha check failed.',
  );

/**
 * Checks a widget's token with the provider (both speak the same siteverify form post). Without
 * settings (CAPTCHA_ENABLED off) every request passes. An unreachable provider fails closed.
 */
export async function checkCaptcha(
  settings: CaptchaSettings | undefined,
  token: string | undefined,
  ip: string | undefined,
): Promise<void> {
  if (!settings) return;
  if (!token) throw refused();
  const body = new URLSearchParams({ secret: settings.secret, response: token, sitekey: settings.siteKey });
  if (ip) body.set('remoteip', ip);
  let answer: z.infer<typeof VerifyAnswer>;
  try {
    const res = await fetch(settings.verifyUrl ?? VERIFY_URLS[settings.provider], {
      method: 'POST',
      body,
      signal: AbortSignal.timeout(10_000),
    });
    answer = VerifyAnswer.parse(await res.json());
  } catch {
    throw refused();
  }
  if (!answer.success) throw refused();
  if (settings.provider === 'recaptcha' && (answer.score ?? 0) < RECAPTCHA_MIN_SCORE) throw refused();
}
