import { defineConfig } from 'drizzle-kit';

// Generating migrations needs no database: `pnpm --filter @weft/db exec drizzle-kit generate`.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/schema/index.ts',
  out: './drizzle',
});
