import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [sveltekit()],
  server: {
    // `vite dev` against a running `weft up`: the API stays on its own port.
    proxy: { '/api': process.env.WEFT_API_URL ?? 'http://localhost:3000' },
  },
});
