import { api, call, setCsrfToken } from '$api/client';
import type { components } from '$api/schema';

export type Me = components['schemas']['Me'];

/** The signed-in user, shared by every page (null: signed out; undefined: not known yet). */
class SessionState {
  me = $state<Me | null | undefined>(undefined);

  can(permission: string): boolean {
    const granted = this.me?.permissions ?? [];
    return granted.includes('*') || granted.includes(permission);
  }

  async load(): Promise<Me | null> {
    const { data, response } = await api.GET('/me');
    if (response.ok && data) {
      setCsrfToken(data.csrf_token);
      this.me = data;
    } else {
      this.me = null;
    }
    return this.me;
  }

  async signOut() {
    await call(api.POST('/auth/logout')).catch(() => undefined);
    this.me = null;
    setCsrfToken('');
  }
}

export const session = new SessionState();
