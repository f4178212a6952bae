/** `+14155550100` → `+14•••••0100`: enough to recognise, not to dial. Pure and zod-free (workflow code masks with it). */
export function maskPhoneText(value: string): string {
  const digits = value.replace(/\D/g, '');
  if (digits.length < 7) return '••••';
  return `+${digits.slice(0, 2)}${'•'.repeat(digits.length - 6)}${digits.slice(-4)}`;
}
