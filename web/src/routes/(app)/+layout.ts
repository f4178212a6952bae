import { redirect } from '@sveltejs/kit';
import { api } from '$api/client';
import { session } from '$lib/session.svelte';

/** Every page here needs a signed-in user; the wizard comes first on a new installation. */
export async function load({ url }) {
  const me = session.me ?? (await session.load());
  if (!me) {
    const { data } = await api.GET('/auth/config');
    if (data?.installation_open) redirect(307, '/setup');
    redirect(307, `/login?next=${encodeURIComponent(url.pathname + url.search)}`);
  }
  return {};
}
