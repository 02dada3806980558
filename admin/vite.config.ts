import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { pdfjsAssets } from './pdfjs-assets';
import { precompress } from './precompress';

const here = path.dirname(fileURLToPath(import.meta.url));
const api = 'http://127.0.0.1:3000';

// The API serves admin/dist and signer-web/dist from one origin: each app keeps its own assets folder.
export default defineConfig({
  base: '/',
  plugins: [react(), pdfjsAssets('/admin-assets/pdfjs/'), precompress()],
  resolve: {
    alias: { '@esign/contract': path.resolve(here, '../api/contract/src/index.ts') },
  },
  // react-admin + MUI make one ~850 kB chunk (270 kB gzipped) and pdf.js another (loaded with the pages that show a
  // PDF); the console is a staff tool, so those sizes are fine.
  build: { outDir: 'dist', assetsDir: 'admin-assets', emptyOutDir: true, chunkSizeWarningLimit: 1200 },
  server: {
    proxy: Object.fromEntries(['/v1', '/api', '/consumers', '/docs', '/health'].map((prefix) => [prefix, api])),
  },
});
