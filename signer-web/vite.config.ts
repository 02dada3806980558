import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { pdfjsAssets } from '../admin/pdfjs-assets';
import { precompress } from '../admin/precompress';
import { earlyEntry, modulePreload } from './module-preload';
import { sizeBudget } from './size-budget';

/** Vite's default inlining of small assets (4 KB), never for WebAssembly. */
const inlineLimit = (file: string) => (file.endsWith('.wasm') ? false : undefined);

const here = path.dirname(fileURLToPath(import.meta.url));
const api = 'http://127.0.0.1:3000';

/** What a recipient may download before the document is shown (issue 6: under 150 KB gzipped). */
const FIRST_PAGE_BUDGET_KB = 150;
/** Loaded only when a face or liveness step is shown: onnxruntime-web and the face engine. */
const FACE_MODULES = /node_modules\/onnxruntime-(web|common)\/|src\/face\//;

// The API serves admin/dist and signer-web/dist from one origin: each app keeps its own assets folder.
// In development /not-found is the console's page, so it goes to the API (which serves admin/dist) too.
export default defineConfig({
  base: '/',
  plugins: [
    react(),
    pdfjsAssets('/signer-assets/pdfjs/'),
    sizeBudget(FIRST_PAGE_BUDGET_KB, /src\/pages\/Esign\.tsx$/, FACE_MODULES),
    // pdf.js is fetched and compiled beside the app's own JavaScript (issue 23); it is still not part of what the size
    // budget counts, since nothing runs it before the document is opened.
    modulePreload(/node_modules\/pdfjs-dist\/build\/pdf\.mjs$/),
    // Starts pdf.js's worker thread on a signing link before the app's modules are evaluated (issue 23).
    earlyEntry('src/boot.ts'),
    precompress(),
  ],
  resolve: {
    alias: [
      { find: /^@esign\/contract$/, replacement: path.resolve(here, '../api/contract/src/index.ts') },
      // The route table alone (its own file, nothing imported): what boot.ts and link.ts need before the app loads.
      { find: /^@esign\/contract\/routes$/, replacement: path.resolve(here, '../api/contract/src/routes.ts') },
    ],
  },
  // onnxruntime-web's wasm (14 MB; 3.7 MB gzipped by precompress) is an asset of its own, never inlined; in development
  // it is served as it is (not pre-bundled), so its `new URL(..., import.meta.url)` keeps working.
  build: { outDir: 'dist', assetsDir: 'signer-assets', emptyOutDir: true, assetsInlineLimit: inlineLimit },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  server: {
    proxy: Object.fromEntries(
      ['/v1', '/api', '/consumers', '/docs', '/health', '/not-found', '/models'].map((prefix) => [prefix, api]),
    ),
  },
});
