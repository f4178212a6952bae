/** What `GET /api/forms/<token>` answers: the hosted form as its page draws it. */
export interface HostedForm {
  title: string;
  description: string | null;
  fields: {
    name: string;
    label: string;
    type: 'text' | 'email' | 'number' | 'select' | 'textarea' | 'checkbox';
    required: boolean;
    options: string[] | null;
    help: string | null;
  }[];
  submit_label: string;
  success_message: string;
  open: boolean;
  captcha: { provider: 'hcaptcha' | 'recaptcha'; site_key: string; script_url: string } | null;
}

/** The API's error envelope, as far as the page reads it. */
export interface FormError {
  code: string;
  message: string;
  fields: Record<string, string[]>;
}

/** Reads the error envelope of a failed answer (or says what went wrong without one). */
export async function errorOf(res: Response): Promise<FormError> {
  try {
    const body = (await res.json()) as { error?: Partial<FormError> };
    return {
      code: body.error?.code ?? 'error',
      message: body.error?.message ?? `The server answered ${res.status}.`,
      fields: body.error?.fields ?? {},
    };
  } catch {
    return { code: 'error', message: `The server answered ${res.status}.`, fields: {} };
  }
}
