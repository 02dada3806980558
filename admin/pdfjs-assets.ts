import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'vite';

/** Where the app finds pdf.js's character maps, standard fonts and decoders (see src/pdf/pdf.ts). */
export const PDFJS_ASSETS_BASE = '/admin-assets/pdfjs/';
const FOLDERS = ['cmaps', 'standard_fonts', 'wasm', 'iccs'];

/**
 * Ships pdf.js's data files with the build (nothing is fetched from elsewhere at run time), and serves them from the
 * package during `vite` development at the same address.
 */
export function pdfjsAssets(): Plugin {
  const root = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  return {
    name: 'esign-pdfjs-assets',
    generateBundle() {
      for (const folder of FOLDERS) {
        for (const name of readdirSync(path.join(root, folder))) {
          this.emitFile({
            type: 'asset',
            fileName: path.posix.join(PDFJS_ASSETS_BASE.slice(1), folder, name),
            source: readFileSync(path.join(root, folder, name)),
          });
        }
      }
    },
    configureServer(server) {
      server.middlewares.use(PDFJS_ASSETS_BASE, (req, res, next) => {
        const file = path.join(root, decodeURIComponent((req.url ?? '').split('?')[0]));
        if (!file.startsWith(root)) return next();
        try {
          res.end(readFileSync(file));
        } catch {
          next();
        }
      });
    },
  };
}
