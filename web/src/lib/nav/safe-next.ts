/**
 * Where to go after signing in: only a path of this site. `//evil.example`, `/\evil.example`,
 * `https://…` and anything that is not a plain path fall back to the dashboard (no open redirect).
 */
export function safeNext(next: string | null | undefined): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  try {
    const url = new URL(next, 'http://weft.invalid');
    if (url.origin !== 'http://weft.invalid') return '/';
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return '/';
  }
}
