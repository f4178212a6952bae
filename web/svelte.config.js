import adapter from '@sveltejs/adapter-node';

/** @type {import('@sveltejs/kit').Config} */
export default {
  kit: {
    // Mounted by the one Node server (services/api/src/server.ts): it imports build/handler.js.
    adapter: adapter({ out: 'build' }),
    // The app renders in the browser and reads everything through /api/v1 (decisions.md "Web app").
    alias: { $api: 'src/lib/api' },
  },
};
