import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { pdfjsAssets } from '../admin/pdfjs-assets';
import { precompress } from '../admin/precompress';
import { sizeBudget } from './size-budget';

const here = path.dirname(fileURLToPath(import.meta.url));
const api = 'http://127.0.0.1:3000';

/** What a recipient may download before the document is shown (issue 6: under 150 KB gzipped). */
const FIRST_PAGE_BUDGET_KB = 150;

// The API serves admin/dist and signer-web/dist from one origin: each app keeps its own assets folder.
// In development /not-found is the console's page, so it goes to the API (which serves admin/dist) too.
export default defineConfig({
  base: '/',
  plugins: [
    react(),
    pdfjsAssets('/signer-assets/pdfjs/'),
    sizeBudget(FIRST_PAGE_BUDGET_KB, /src\/pages\/Esign\.tsx$/),
    precompress(),
  ],
  resolve: {
    alias: { '@esign/contract': path.resolve(here, '../api/contract/src/index.ts') },
  },
  build: { outDir: 'dist', assetsDir: 'signer-assets', emptyOutDir: true },
  server: {
    proxy: Object.fromEntries(
      ['/v1', '/api', '/consumers', '/docs', '/health', '/not-found'].map((prefix) => [prefix, api]),
    ),
  },
});
