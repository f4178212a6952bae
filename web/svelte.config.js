import adapter from '@sveltejs/adapter-node';

/** @type {import('@sveltejs/kit').Config} */
export default {
  kit: {
    // Mounted by the one Node server (services/api/src/server.ts): it imports build/handler.js.
    adapter: adapter({ out: 'build' }),
    // The app renders in the browser and reads everything through /api/v1 (decisions.md "Web app").
    alias: { $api: 'src/lib/api' },
    // Every page is rendered per request (no prerendering), so each gets a fresh nonce on its
    // scripts, app.html's theme script included. Styles: the built CSS files, plus the style
    // attributes Svelte sets, which need 'unsafe-inline' (style cannot run code).
    csp: {
      mode: 'nonce',
      directives: {
        'default-src': ['self'],
        'script-src': ['self'],
        'style-src': ['self', 'unsafe-inline'],
        'img-src': ['self', 'data:'],
        'font-src': ['self'],
        'connect-src': ['self'],
        'object-src': ['none'],
        'base-uri': ['self'],
        'form-action': ['self'],
        'frame-ancestors': ['none'],
      },
    },
  },
};
