import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig, loadEnv } from 'vite';

export default defineConfig(({ mode }) => ({
  plugins: [sveltekit()],
  server: {
    // `vite dev` against a running `weft up`: the API stays on its own port (WEFT_API_URL otherwise).
    proxy: { '/api': loadEnv(mode, process.cwd(), 'WEFT_').WEFT_API_URL ?? 'http://localhost:3000' },
  },
}));
