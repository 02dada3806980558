import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'vite';

const FOLDERS = ['cmaps', 'standard_fonts', 'wasm', 'iccs'];

/**
 * Ships pdf.js's data files with the build under `base` (nothing is fetched from elsewhere at run time), and serves
 * them from the package during `vite` development at the same address. Used by the console (base
 * '/admin-assets/pdfjs/', see src/pdf/pdf.ts) and the signer app ('/signer-assets/pdfjs/').
 */
export function pdfjsAssets(base: string): Plugin {
  const root = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  return {
    name: 'esign-pdfjs-assets',
    generateBundle() {
      for (const folder of FOLDERS) {
        for (const name of readdirSync(path.join(root, folder))) {
          this.emitFile({
            type: 'asset',
            fileName: path.posix.join(base.slice(1), folder, name),
            source: readFileSync(path.join(root, folder, name)),
          });
        }
      }
    },
    configureServer(server) {
      server.middlewares.use(base, (req, res, next) => {
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
