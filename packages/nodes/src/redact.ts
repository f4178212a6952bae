/**
 * What a step's resolved config may keep when it is stored (DESIGN §12.4: the expression trace with
 * secrets masked): a chat node's recipient is a phone number, stored only masked. Pure and zod-free:
 * the interpreter applies it in workflow code before a step is reported.
 */
const PHONE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'action.chat.send': ['to'],
  'action.chat.send_template': ['to'],
};

/** `+14155550100` → `+14•••••0100`: enough to recognise, not to dial. */
export function maskPhoneText(value: string): string {
  const digits = value.replace(/\D/g, '');
  if (digits.length < 7) return '••••';
  return `+${digits.slice(0, 2)}${'•'.repeat(digits.length - 6)}${digits.slice(-4)}`;
}

export function redactResolvedConfig(type: string, config: unknown): unknown {
  const fields = Object.hasOwn(PHONE_FIELDS, type) ? PHONE_FIELDS[type] : undefined;
  if (!fields || config === null || typeof config !== 'object') return config;
  const copy: Record<string, unknown> = { ...(config as Record<string, unknown>) };
  for (const field of fields)
    if (typeof copy[field] === 'string') copy[field] = maskPhoneText(copy[field] as string);
  return copy;
}
